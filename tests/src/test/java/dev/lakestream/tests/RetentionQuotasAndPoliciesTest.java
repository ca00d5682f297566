package dev.lakestream.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.pulsar.client.api.Consumer;
import org.apache.pulsar.client.api.Message;
import org.apache.pulsar.client.api.MessageId;
import org.apache.pulsar.client.api.Producer;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.PulsarClientException;
import org.apache.pulsar.client.api.Reader;
import org.apache.pulsar.common.policies.data.BacklogQuota;
import org.apache.pulsar.common.policies.data.RetentionPolicies;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * TTL, retention and trimming, backlog quotas (all three policies), topic-level policies, and topics unloaded, deleted
 * and created again, on a broker on S3Proxy + Oxia. Ledgers roll every 5 entries so that retention has closed
 * ledgers to remove.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class RetentionQuotasAndPoliciesTest {

    @RegisterExtension
    static final PulsarBrokerExtension BROKER = PulsarBrokerExtension.onS3ProxyAndOxia()
            .config("managedLedgerMaxEntriesPerLedger", "5")
            .config("managedLedgerMinLedgerRolloverTimeMinutes", "0")
            .config("retentionCheckIntervalInSeconds", "1");

    private static final byte[] KB = new byte[1024];

    private static PulsarClient client;

    @BeforeAll
    static void setUp() throws Exception {
        client = BROKER.newClient();
        for (String ns : List.of(
                "public/keep", "public/drop", "public/quota-exception", "public/quota-hold", "public/quota-evict")) {
            BROKER.admin().namespaces().createNamespace(ns);
        }
    }

    private static List<MessageId> send(String topic, String prefix, int n) throws Exception {
        List<MessageId> ids = new ArrayList<>();
        try (Producer<byte[]> p =
                client.newProducer().topic(topic).enableBatching(false).create()) {
            for (int i = 0; i < n; i++) {
                ids.add(p.send((prefix + "-" + i).getBytes(StandardCharsets.UTF_8)));
            }
        }
        return ids;
    }

    private static List<String> readAll(String topic) throws Exception {
        List<String> got = new ArrayList<>();
        try (Reader<byte[]> r = client.newReader()
                .topic(topic)
                .startMessageId(MessageId.earliest)
                .create()) {
            while (r.hasMessageAvailable()) {
                got.add(new String(r.readNext(20, TimeUnit.SECONDS).getValue(), StandardCharsets.UTF_8));
            }
        }
        return got;
    }

    private static long backlog(String topic, String sub) throws Exception {
        return BROKER.admin()
                .topics()
                .getStats(topic)
                .getSubscriptions()
                .get(sub)
                .getMsgBacklog();
    }

    @Test
    void retentionKeepsConsumedDataOnlyWhereThePolicySaysSo() throws Exception {
        BROKER.admin().namespaces().setRetention("public/keep", new RetentionPolicies(60, 100));
        String kept = "persistent://public/keep/consumed";
        String dropped = "persistent://public/drop/consumed";
        String unconsumed = "persistent://public/drop/unconsumed";
        for (String t : List.of(kept, dropped, unconsumed)) {
            try (Consumer<byte[]> c = RoundTrips.subscribe(client, t, "s")) {
                send(t, "r", 20);
                if (!t.equals(unconsumed)) {
                    assertThat(RoundTrips.receive(c, 20)).isEqualTo(RoundTrips.expected("r", 0, 20));
                }
            }
        }
        assertThat(BROKER.admin().topics().getInternalStats(unconsumed).ledgers)
                .as("ledgers of 5 entries, the last" + " empty")
                .hasSize(5);

        // Without retention, the consumed ledgers go (all but the current one).
        await("consumed ledgers of " + dropped + " trimmed")
                .atMost(Duration.ofMinutes(1))
                .ignoreExceptionsInstanceOf(Exception.class)
                .until(() -> BROKER.admin()
                                .topics()
                                .getInternalStats(dropped)
                                .ledgers
                                .size()
                        == 1);
        assertThat(readAll(dropped)).as("nothing left to read").isEmpty();
        try (Consumer<byte[]> c = RoundTrips.subscribe(client, dropped, "late")) {
            RoundTrips.assertNothingMore(c, 1000);
        }
        // Retention keeps consumed data; a backlog is never trimmed.
        assertThat(readAll(kept)).isEqualTo(RoundTrips.expected("r", 0, 20));
        assertThat(readAll(unconsumed)).isEqualTo(RoundTrips.expected("r", 0, 20));
        assertThat(BROKER.admin().topics().getInternalStats(kept).ledgers).hasSize(5);
        assertThat(BROKER.admin().topics().getStats(kept).getStorageSize()).isPositive();
    }

    @Test
    void ttlExpiresTheBacklogOfATopicWithATopicPolicy() throws Exception {
        String t = "persistent://public/drop/ttl";
        try (Consumer<byte[]> c = RoundTrips.subscribe(client, t, "slow")) {
            send(t, "t", 8);
        }
        assertThat(backlog(t, "slow")).isEqualTo(8);
        long sent = System.currentTimeMillis();
        BROKER.admin().topicPolicies().setMessageTTL(t, 1);
        await("the TTL policy is visible")
                .atMost(Duration.ofSeconds(30))
                .ignoreExceptionsInstanceOf(Exception.class)
                .until(() ->
                        Integer.valueOf(1).equals(BROKER.admin().topicPolicies().getMessageTTL(t)));
        await("the messages are older than the TTL")
                .atMost(Duration.ofSeconds(10))
                .ignoreExceptionsInstanceOf(Exception.class)
                .until(() -> System.currentTimeMillis() > sent + 1500);
        await("the backlog expires")
                .atMost(Duration.ofMinutes(1))
                .ignoreExceptionsInstanceOf(Exception.class)
                .until(() -> {
                    BROKER.pulsar().getBrokerService().checkMessageExpiry();
                    return backlog(t, "slow") == 0;
                });
        send(t, "fresh", 2);
        try (Consumer<byte[]> c = RoundTrips.subscribe(client, t, "slow")) {
            assertThat(RoundTrips.receive(c, 2)).isEqualTo(RoundTrips.expected("fresh", 0, 2));
        }
    }

    private static void sendKilobytes(String topic, int n) throws Exception {
        try (Producer<byte[]> p =
                client.newProducer().topic(topic).enableBatching(false).create()) {
            for (int i = 0; i < n; i++) {
                p.newMessage().value(KB).property("i", Integer.toString(i)).send();
            }
        }
    }

    private static BacklogQuota quota(BacklogQuota.RetentionPolicy policy) {
        return BacklogQuota.builder()
                .limitSize(4 * 1024)
                .retentionPolicy(policy)
                .build();
    }

    @Test
    void backlogQuotaProducerExceptionRefusesProducers() throws Exception {
        String ns = "public/quota-exception";
        BROKER.admin().namespaces().setBacklogQuota(ns, quota(BacklogQuota.RetentionPolicy.producer_exception));
        String t = "persistent://" + ns + "/t";
        // The client retries a refused producer until its operation timeout: a short one here.
        PulsarClient impatient = BROKER.newClient(b -> b.operationTimeout(3, TimeUnit.SECONDS));
        try (Consumer<byte[]> c = RoundTrips.subscribe(client, t, "slow")) {
            sendKilobytes(t, 10);
            assertThatThrownBy(() -> impatient.newProducer().topic(t).create())
                    .isInstanceOf(PulsarClientException.ProducerBlockedQuotaExceededException.class);
            // Consuming the backlog lifts the block.
            for (int i = 0; i < 10; i++) {
                c.acknowledge(c.receive(20, TimeUnit.SECONDS));
            }
            await("backlog consumed")
                    .atMost(Duration.ofSeconds(30))
                    .ignoreExceptionsInstanceOf(Exception.class)
                    .until(() -> backlog(t, "slow") == 0);
            await("a producer is admitted again")
                    .atMost(Duration.ofSeconds(30))
                    .ignoreExceptionsInstanceOf(Exception.class)
                    .until(() -> {
                        try (Producer<byte[]> p =
                                impatient.newProducer().topic(t).create()) {
                            return true;
                        } catch (PulsarClientException.ProducerBlockedQuotaExceededException e) {
                            return false;
                        }
                    });
        }
    }

    @Test
    void backlogQuotaProducerRequestHoldHoldsProducersUntilTheBacklogShrinks() throws Exception {
        String ns = "public/quota-hold";
        BROKER.admin().namespaces().setBacklogQuota(ns, quota(BacklogQuota.RetentionPolicy.producer_request_hold));
        String t = "persistent://" + ns + "/t";
        try (Consumer<byte[]> c = RoundTrips.subscribe(client, t, "slow")) {
            sendKilobytes(t, 10);
            CompletableFuture<Producer<byte[]>> held = client.newProducer()
                    .topic(t)
                    .sendTimeout(60, TimeUnit.SECONDS)
                    .createAsync();
            // The broker refuses it and the client retries: still not created after 3 s.
            assertThatThrownBy(() -> held.get(3, TimeUnit.SECONDS))
                    .isInstanceOf(java.util.concurrent.TimeoutException.class);
            assertThat(BROKER.admin().topics().getStats(t).getPublishers()).isEmpty();
            for (int i = 0; i < 10; i++) {
                c.acknowledge(c.receive(20, TimeUnit.SECONDS));
            }
            Producer<byte[]> p = held.get(60, TimeUnit.SECONDS);
            p.send("after".getBytes(StandardCharsets.UTF_8));
            p.close();
            assertThat(new String(c.receive(20, TimeUnit.SECONDS).getValue(), StandardCharsets.UTF_8))
                    .isEqualTo("after");
        }
    }

    @Test
    void backlogQuotaConsumerEvictionDropsTheOldestBacklog() throws Exception {
        String ns = "public/quota-evict";
        BROKER.admin().namespaces().setBacklogQuota(ns, quota(BacklogQuota.RetentionPolicy.consumer_backlog_eviction));
        String t = "persistent://" + ns + "/t";
        try (Consumer<byte[]> c = RoundTrips.subscribe(client, t, "slow")) {
            c.pause();
            sendKilobytes(t, 12);
        }
        assertThat(backlog(t, "slow")).isEqualTo(12);
        await("the slow subscription's backlog is cut below the quota")
                .atMost(Duration.ofMinutes(1))
                .ignoreExceptionsInstanceOf(Exception.class)
                .until(() -> {
                    BROKER.pulsar().getBrokerService().monitorBacklogQuota();
                    return backlog(t, "slow") < 12
                            && BROKER.admin().topics().getStats(t).getBacklogSize() <= 4 * 1024 + 1024;
                });
        long left = backlog(t, "slow");
        assertThat(left).isPositive();
        // What is left is the newest messages, in order.
        try (Consumer<byte[]> c = RoundTrips.subscribe(client, t, "slow")) {
            List<String> idx = new ArrayList<>();
            for (int i = 0; i < left; i++) {
                Message<byte[]> m = c.receive(20, TimeUnit.SECONDS);
                idx.add(m.getProperty("i"));
                c.acknowledge(m);
            }
            List<String> expected = new ArrayList<>();
            for (long i = 12 - left; i < 12; i++) {
                expected.add(Long.toString(i));
            }
            assertThat(idx).isEqualTo(expected);
            RoundTrips.assertNothingMore(c, 1000);
        }
    }

    @Test
    void topicPoliciesAreStoredReadBackAndEnforced() throws Exception {
        String t = "persistent://public/drop/policies";
        BROKER.admin().topics().createNonPartitionedTopic(t);
        BROKER.admin().topicPolicies().setMaxProducers(t, 1);
        BROKER.admin().topicPolicies().setRetention(t, new RetentionPolicies(30, 10));
        BROKER.admin().topicPolicies().setMaxUnackedMessagesOnConsumer(t, 7);
        await("topic policies visible")
                .atMost(Duration.ofSeconds(30))
                .ignoreExceptionsInstanceOf(Exception.class)
                .until(() ->
                        Integer.valueOf(1).equals(BROKER.admin().topicPolicies().getMaxProducers(t))
                                && BROKER.admin().topicPolicies().getRetention(t) != null
                                && BROKER.admin().topicPolicies().getMaxUnackedMessagesOnConsumer(t) != null);
        assertThat(BROKER.admin().topicPolicies().getRetention(t)).isEqualTo(new RetentionPolicies(30, 10));
        assertThat(BROKER.admin().topicPolicies().getMaxUnackedMessagesOnConsumer(t))
                .isEqualTo(7);

        try (Producer<byte[]> first = client.newProducer().topic(t).create()) {
            await("a second producer is refused")
                    .atMost(Duration.ofSeconds(30))
                    .ignoreExceptionsInstanceOf(Exception.class)
                    .until(() -> {
                        try (Producer<byte[]> second =
                                client.newProducer().topic(t).create()) {
                            return false;
                        } catch (PulsarClientException e) {
                            return true;
                        }
                    });
            first.send("one".getBytes(StandardCharsets.UTF_8));
        }
        // The policies live in the namespace's __change_events topic, itself on Lakestream: an unload keeps them.
        BROKER.admin().topics().unload(t);
        assertThat(BROKER.admin().topicPolicies().getMaxProducers(t)).isEqualTo(1);
        assertThat(BROKER.admin().topics().getInternalStats("persistent://public/drop/__change_events").numberOfEntries)
                .isPositive();
        BROKER.admin().topicPolicies().removeMaxProducers(t);
        await("max producers removed")
                .atMost(Duration.ofSeconds(30))
                .ignoreExceptionsInstanceOf(Exception.class)
                .until(() -> BROKER.admin().topicPolicies().getMaxProducers(t) == null);
    }

    @Test
    void unloadKeepsDataAndDeleteForgetsIt() throws Exception {
        String t = "persistent://public/drop/lifecycle";
        try (Consumer<byte[]> c = RoundTrips.subscribe(client, t, "s")) {
            send(t, "old", 5);
            assertThat(RoundTrips.receive(c, 2)).isEqualTo(RoundTrips.expected("old", 0, 2));
            BROKER.admin().topics().unload(t);
            // The consumer reconnects to the reloaded topic and goes on where it was.
            assertThat(RoundTrips.receive(c, 3)).isEqualTo(RoundTrips.expected("old", 2, 5));
        }
        send(t, "old", 3);
        BROKER.admin().topics().delete(t, true);
        assertThat(BROKER.admin().topics().getList("public/drop")).doesNotContain(t);

        send(t, "new", 3);
        assertThat(readAll(t)).as("no old data resurrected").isEqualTo(RoundTrips.expected("new", 0, 3));
        assertThat(BROKER.admin().topics().getStats(t).getSubscriptions()).doesNotContainKey("s");
        assertThat(BROKER.admin().topics().getInternalStats(t).entriesAddedCounter)
                .isEqualTo(3);
        try (Consumer<byte[]> c = RoundTrips.subscribe(client, t, "s")) {
            assertThat(RoundTrips.receive(c, 3)).isEqualTo(RoundTrips.expected("new", 0, 3));
            RoundTrips.assertNothingMore(c, 1000);
        }
    }
}
