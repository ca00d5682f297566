package dev.lakestream.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.pulsar.client.api.PulsarClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One broker on S3Proxy and Oxia, stopped and started while a producer and a consumer run: every message acknowledged
 * to the producer is stored exactly once (deduplication on) and delivered, and the subscription resumes where it was
 * acknowledged: no message whose acknowledgement the broker confirmed before the stop comes again.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class BrokerRestartMidStreamTest {

    private static final Logger LOG = LoggerFactory.getLogger(BrokerRestartMidStreamTest.class);

    @RegisterExtension
    static final PulsarBrokerExtension BROKER =
            PulsarBrokerExtension.onS3ProxyAndOxia().config("lakestream.writer.flushDelay", "5ms");

    @Test
    void restartMidStreamKeepsEveryAcknowledgedMessageOnceAndResumesTheCursor() throws Exception {
        String ns = "public/restart-mid-stream";
        String topic = "persistent://" + ns + "/orders";
        BROKER.admin().namespaces().createNamespace(ns);
        BROKER.admin().namespaces().setDeduplicationStatus(ns, true);
        BROKER.admin().topics().createNonPartitionedTopic(topic);
        PulsarClient client = BROKER.newClient(b -> b.operationTimeout(30, TimeUnit.SECONDS));
        int count = 1500;
        try (KeyedTraffic traffic = new KeyedTraffic(client, topic, "counted").start(count, 150)) {
            await("400 acknowledgements confirmed to the consumer")
                    .atMost(Duration.ofMinutes(2))
                    .ignoreExceptionsInstanceOf(Exception.class)
                    .until(() -> traffic.ackConfirmed().size() >= 400);
            Set<Integer> confirmedBeforeStop = traffic.ackConfirmed();
            BROKER.restart();
            LOG.info(
                    "Restarted after {} sends, {} acknowledgements confirmed",
                    traffic.sent(),
                    confirmedBeforeStop.size());

            traffic.assertSettled(120);
            assertThat(traffic.failed()).as("sends that failed").isEmpty();
            assertThat(traffic.receivedTwiceAmong(confirmedBeforeStop))
                    .as("messages delivered again although their acknowledgement was confirmed before the stop")
                    .isEmpty();
            Map<Integer, Integer> stored = KeyedTraffic.stored(client, topic).counts();
            assertThat(stored.keySet()).as("stored messages").containsAll(traffic.acked());
            assertThat(stored.entrySet())
                    .as("messages stored more than once, deduplication on")
                    .filteredOn(e -> e.getValue() > 1)
                    .isEmpty();
            LOG.info(
                    "{} acknowledged, {} stored, {} redelivered",
                    traffic.ackedCount(),
                    stored.size(),
                    traffic.redelivered());
        }
    }
}
