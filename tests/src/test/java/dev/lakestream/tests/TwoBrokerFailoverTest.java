package dev.lakestream.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.pulsar.client.admin.PulsarAdmin;
import org.apache.pulsar.client.api.PulsarClient;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Two brokers, each in its own JVM, sharing one Oxia server and one S3Proxy bucket (a {@link BrokerCluster}), with a
 * producer and a consumer running while the topic is unloaded and its owning broker is killed with {@code SIGKILL}.
 * Every message the broker acknowledged to the producer must reach the consumer; duplicates are counted, and with
 * deduplication on the topic must hold each message exactly once.
 */
@Timeout(value = 8, unit = TimeUnit.MINUTES)
class TwoBrokerFailoverTest {

    private static final Logger LOG = LoggerFactory.getLogger(TwoBrokerFailoverTest.class);
    private static final Duration START_TIMEOUT = BrokerCluster.START_TIMEOUT;

    @RegisterExtension
    static final BrokerClusterExtension CLUSTER = new BrokerClusterExtension("failover", 2);

    private static BrokerProcess brokerA;
    private static BrokerProcess brokerB;

    @BeforeAll
    static void nameBrokers() {
        brokerA = CLUSTER.cluster().brokers().get(0);
        brokerB = CLUSTER.cluster().brokers().get(1);
    }

    @Test
    void unloadAndKillTheOwnerWithDeduplicationLoseNothingAndStoreNothingTwice() throws Exception {
        String ns = "public/failover-dedup";
        String topic = "persistent://" + ns + "/orders";
        try (PulsarAdmin admin = admin();
                PulsarClient client = client()) {
            admin.namespaces().createNamespace(ns);
            admin.namespaces().setDeduplicationStatus(ns, true);
            admin.topics().createNonPartitionedTopic(topic);
            Outcome o = runThroughUnloadAndKill(admin, client, topic, 3000, 150);

            assertThat(o.traffic.failed()).as("sends that failed").isEmpty();
            Map<Integer, Integer> stored = KeyedTraffic.stored(client, topic).counts();
            assertThat(stored.keySet()).as("stored messages").containsAll(o.traffic.acked());
            assertThat(stored.entrySet())
                    .as("messages stored more than once, deduplication on")
                    .filteredOn(e -> e.getValue() > 1)
                    .isEmpty();
            LOG.info(
                    "dedup on: {} acknowledged, {} stored, {} redelivered to the consumer",
                    o.traffic.ackedCount(),
                    stored.size(),
                    o.traffic.redelivered());
            o.traffic.close();
        } finally {
            restartKilledBrokers();
        }
    }

    @Test
    void unloadAndKillTheOwnerWithoutDeduplicationLoseNothing() throws Exception {
        String ns = "public/failover-plain";
        String topic = "persistent://" + ns + "/orders";
        try (PulsarAdmin admin = admin();
                PulsarClient client = client()) {
            admin.namespaces().createNamespace(ns);
            admin.topics().createNonPartitionedTopic(topic);
            Outcome o = runThroughUnloadAndKill(admin, client, topic, 3000, 150);

            assertThat(o.traffic.failed()).as("sends that failed").isEmpty();
            Map<Integer, Integer> stored = KeyedTraffic.stored(client, topic).counts();
            assertThat(stored.keySet()).as("stored messages").containsAll(o.traffic.acked());
            long storedTwice = stored.values().stream().filter(c -> c > 1).count();
            // Without deduplication a producer resends what it had in flight when its broker died; those may be
            // stored twice. Nothing else may be.
            LOG.info(
                    "dedup off: {} acknowledged, {} stored, {} stored more than once, {} redelivered",
                    o.traffic.ackedCount(),
                    stored.size(),
                    storedTwice,
                    o.traffic.redelivered());
            o.traffic.close();
        } finally {
            restartKilledBrokers();
        }
    }

    @Test
    void killingBothBrokersAndRestartingThemLosesNothing() throws Exception {
        String ns = "public/crash-restart";
        String topic = "persistent://" + ns + "/orders";
        try (PulsarAdmin admin = admin();
                PulsarClient client = client()) {
            admin.namespaces().createNamespace(ns);
            admin.namespaces().setDeduplicationStatus(ns, true);
            admin.topics().createNonPartitionedTopic(topic);
            try (KeyedTraffic traffic = new KeyedTraffic(client, topic, "counted").start(2000, 150)) {
                awaitSent(traffic, 600);
                brokerA.kill();
                brokerB.kill();
                LOG.info("Both brokers killed after {} sends ({} acknowledged)", traffic.sent(), traffic.ackedCount());
                brokerA.start(START_TIMEOUT);
                brokerB.start(START_TIMEOUT);
                traffic.assertSettled(180);
                assertThat(traffic.failed()).as("sends that failed").isEmpty();
                Map<Integer, Integer> stored =
                        KeyedTraffic.stored(client, topic).counts();
                assertThat(stored.keySet()).as("stored messages").containsAll(traffic.acked());
                assertThat(stored.entrySet())
                        .as("messages stored more than once, deduplication on")
                        .filteredOn(e -> e.getValue() > 1)
                        .isEmpty();
            }
        } finally {
            restartKilledBrokers();
        }
    }

    // -------------------------------------------------------------------------------------------------- helpers

    private record Outcome(KeyedTraffic traffic, String killed) {}

    /** Runs {@code count} messages at {@code rate}; unloads the topic after a fifth, kills its owner after half. */
    private Outcome runThroughUnloadAndKill(PulsarAdmin admin, PulsarClient client, String topic, int count, int rate)
            throws Exception {
        KeyedTraffic traffic = new KeyedTraffic(client, topic, "counted").start(count, rate);
        awaitSent(traffic, count / 5);
        String ownerBefore = admin.lookups().lookupTopic(topic);
        admin.topics().unload(topic);
        LOG.info("Unloaded {} (owner was {}) after {} sends", topic, ownerBefore, traffic.sent());

        awaitSent(traffic, count / 2);
        String owner = admin.lookups().lookupTopic(topic);
        BrokerProcess victim = owner.endsWith(brokerA.brokerAddress()) ? brokerA : brokerB;
        assertThat(owner).as("owner of %s", topic).endsWith(victim.brokerAddress());
        victim.kill();
        LOG.info(
                "Killed {} (owner of {}) after {} sends, {} acknowledged",
                victim,
                topic,
                traffic.sent(),
                traffic.ackedCount());

        traffic.assertSettled(180);
        return new Outcome(traffic, victim.name());
    }

    private static void awaitSent(KeyedTraffic traffic, int n) throws Exception {
        await(n + " sends issued")
                .atMost(Duration.ofMinutes(2))
                .ignoreExceptionsInstanceOf(Exception.class)
                .until(() -> traffic.sent() >= n);
    }

    private static void restartKilledBrokers() throws Exception {
        CLUSTER.cluster().restartStoppedBrokers();
    }

    private static PulsarAdmin admin() throws Exception {
        return PulsarAdmin.builder()
                .serviceHttpUrl(BrokerCluster.webServiceUrl(CLUSTER.cluster().brokers()))
                .connectionTimeout(10, TimeUnit.SECONDS)
                .readTimeout(60, TimeUnit.SECONDS)
                .requestTimeout(90, TimeUnit.SECONDS)
                .build();
    }

    private static PulsarClient client() throws Exception {
        return PulsarClient.builder()
                .serviceUrl(BrokerCluster.serviceUrl(CLUSTER.cluster().brokers()))
                .operationTimeout(30, TimeUnit.SECONDS)
                .build();
    }
}
