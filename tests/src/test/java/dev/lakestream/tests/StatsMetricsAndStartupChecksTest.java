package dev.lakestream.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.pulsar.client.api.Consumer;
import org.apache.pulsar.client.api.Message;
import org.apache.pulsar.client.api.MessageId;
import org.apache.pulsar.client.api.Producer;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.impl.MessageIdImpl;
import org.apache.pulsar.common.policies.data.PersistentTopicInternalStats;
import org.apache.pulsar.common.policies.data.TopicStats;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Topic stats, internal stats and the broker's Prometheus endpoint for Lakestream topics (embedded stores), and the
 * start-up check that refuses features needing BookKeeper on a diskless broker.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class StatsMetricsAndStartupChecksTest {

    @RegisterExtension
    static final PulsarBrokerExtension BROKER = PulsarBrokerExtension.embedded()
            // Broker entry metadata (index and broker timestamp), written by managed-ledger interceptors.
            .config(
                    "brokerEntryMetadataInterceptors",
                    "org.apache.pulsar.common.intercept.AppendIndexMetadataInterceptor,"
                            + "org.apache.pulsar.common.intercept.AppendBrokerTimestampMetadataInterceptor")
            .config("exposingBrokerEntryMetadataToClientEnabled", "true");

    private static final String TOPIC = "persistent://public/default/stats-topic";

    private static List<MessageId> produceAndAckFour(PulsarClient client) throws Exception {
        List<MessageId> ids = new ArrayList<>();
        try (Consumer<byte[]> c = RoundTrips.subscribe(client, TOPIC, "s");
                Producer<byte[]> p =
                        client.newProducer().topic(TOPIC).enableBatching(false).create()) {
            for (int i = 0; i < 10; i++) {
                ids.add(p.send(new byte[100]));
            }
            Message<byte[]> m = null;
            for (int i = 0; i < 4; i++) {
                m = c.receive(20, TimeUnit.SECONDS);
            }
            c.acknowledgeCumulative(m);
        }
        return ids;
    }

    @Test
    void topicStatsInternalStatsAndPrometheusMetrics() throws Exception {
        PulsarClient client = BROKER.newClient();
        List<MessageId> ids = produceAndAckFour(client);
        await("the mark-delete of s reaches the cursor")
                .atMost(Duration.ofSeconds(30))
                .ignoreExceptionsInstanceOf(Exception.class)
                .until(() -> BROKER.admin()
                                .topics()
                                .getStats(TOPIC)
                                .getSubscriptions()
                                .get("s")
                                .getMsgBacklog()
                        == 6);

        TopicStats stats = BROKER.admin().topics().getStats(TOPIC);
        assertThat(stats.getMsgInCounter()).isEqualTo(10);
        assertThat(stats.getBytesInCounter()).isGreaterThanOrEqualTo(1000);
        assertThat(stats.getStorageSize()).isGreaterThanOrEqualTo(1000);
        assertThat(stats.getBacklogSize()).isPositive().isLessThan(stats.getStorageSize());
        assertThat(stats.getSubscriptions().get("s").getMsgBacklog()).isEqualTo(6);

        PersistentTopicInternalStats internal = BROKER.admin().topics().getInternalStats(TOPIC);
        MessageIdImpl fourth = (MessageIdImpl) ids.get(3);
        assertThat(internal.entriesAddedCounter).isEqualTo(10);
        assertThat(internal.numberOfEntries).isEqualTo(10);
        assertThat(internal.totalSize).isGreaterThanOrEqualTo(1000);
        assertThat(internal.ledgers).isNotEmpty();
        assertThat(internal.lastConfirmedEntry)
                .isEqualTo(
                        ((MessageIdImpl) ids.get(9)).getLedgerId() + ":" + ((MessageIdImpl) ids.get(9)).getEntryId());
        assertThat(internal.cursors.get("s").markDeletePosition)
                .isEqualTo(fourth.getLedgerId() + ":" + fourth.getEntryId());

        // analyze-backlog scans the subscription's backlog on the managed ledger.
        var analysis = BROKER.admin().topics().analyzeSubscriptionBacklog(TOPIC, "s", java.util.Optional.empty());
        assertThat(analysis.getEntries()).isEqualTo(6);
        assertThat(analysis.getMessages()).isEqualTo(6);
        assertThat(analysis.isAborted()).isFalse();

        String topicLabel = "topic=\"" + TOPIC + "\"";
        String[] body = new String[1];
        await("topic metrics of " + TOPIC + " in /metrics")
                .atMost(Duration.ofMinutes(1))
                .ignoreExceptionsInstanceOf(Exception.class)
                .until(() -> {
                    BROKER.pulsar().getBrokerService().updateRates();
                    body[0] = BrokerMetrics.scrape(BROKER);
                    return BrokerMetrics.value(body[0], "pulsar_msg_backlog", topicLabel) == 6.0;
                });
        assertThat(BrokerMetrics.value(body[0], "pulsar_in_messages_total", topicLabel))
                .isEqualTo(10.0);
        assertThat(BrokerMetrics.value(body[0], "pulsar_storage_size", topicLabel))
                .isGreaterThanOrEqualTo(1000.0);
    }

    @Test
    void brokerEntryMetadataIndexesContinueAcrossAReload() throws Exception {
        String t = "persistent://public/default/entry-metadata";
        PulsarClient client = BROKER.newClient();
        RoundTrips.produce(client, t, "i", 3);
        BROKER.admin().topics().unload(t);
        RoundTrips.produce(client, t, "i", 2);
        List<Long> indexes = new ArrayList<>();
        long before = System.currentTimeMillis() - 600_000;
        try (Consumer<byte[]> c = RoundTrips.subscribe(client, t, "s")) {
            for (int i = 0; i < 5; i++) {
                Message<byte[]> m = c.receive(20, TimeUnit.SECONDS);
                assertThat(m.hasIndex()).isTrue();
                assertThat(m.hasBrokerPublishTime()).isTrue();
                assertThat(m.getBrokerPublishTime().get()).isGreaterThan(before);
                indexes.add(m.getIndex().get());
                c.acknowledge(m);
            }
        }
        // The index interceptor recovers the last index from the last entry when the topic loads again.
        assertThat(indexes).containsExactly(0L, 1L, 2L, 3L, 4L);
    }

    @Test
    void aDisklessBrokerRefusesToStartWithFeaturesThatNeedBookKeeper() {
        PulsarBrokerExtension bad = PulsarBrokerExtension.embedded()
                .config(
                        "delayedDeliveryTrackerFactoryClassName",
                        "org.apache.pulsar.broker.delayed.BucketDelayedDeliveryTrackerFactory")
                .config(
                        "transactionMetadataStoreProviderClassName",
                        "org.apache.pulsar.transaction.coordinator.impl.MLTransactionMetadataStoreProvider");
        try {
            assertThatThrownBy(bad::start)
                    .hasStackTraceContaining("diskless")
                    .hasStackTraceContaining("delayedDeliveryTrackerFactoryClassName=org.apache.pulsar.broker.delayed"
                            + ".BucketDelayedDeliveryTrackerFactory")
                    .hasStackTraceContaining("transactionMetadataStoreProviderClassName=");
        } finally {
            bad.close();
        }
    }
}
