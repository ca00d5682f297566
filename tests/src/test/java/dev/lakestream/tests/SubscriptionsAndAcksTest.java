package dev.lakestream.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.pulsar.client.api.Consumer;
import org.apache.pulsar.client.api.DeadLetterPolicy;
import org.apache.pulsar.client.api.Message;
import org.apache.pulsar.client.api.MessageId;
import org.apache.pulsar.client.api.Producer;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.PulsarClientException;
import org.apache.pulsar.client.api.SubscriptionInitialPosition;
import org.apache.pulsar.client.api.SubscriptionType;
import org.apache.pulsar.common.policies.data.PersistentTopicInternalStats;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Subscription types, batching, acknowledgements (individual, cumulative, batch index), negative acks, ack timeouts,
 * dead-letter topics and partitioned topics, with the real client on a broker on S3Proxy + Oxia.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class SubscriptionsAndAcksTest {

    @RegisterExtension
    static final PulsarBrokerExtension BROKER = PulsarBrokerExtension.onS3ProxyAndOxia();

    private static PulsarClient client;

    @BeforeAll
    static void client() throws Exception {
        client = BROKER.newClient();
    }

    private static String topic(String name) {
        return "persistent://public/default/subs-" + name;
    }

    private static List<MessageId> send(String topic, String prefix, int n, boolean batching) throws Exception {
        try (Producer<byte[]> p = client.newProducer()
                .topic(topic)
                .enableBatching(batching)
                .batchingMaxPublishDelay(50, TimeUnit.MILLISECONDS)
                .batchingMaxMessages(n)
                .create()) {
            List<CompletableFuture<MessageId>> fs = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                fs.add(p.sendAsync((prefix + "-" + i).getBytes(StandardCharsets.UTF_8)));
            }
            p.flush();
            List<MessageId> ids = new ArrayList<>();
            for (CompletableFuture<MessageId> f : fs) {
                ids.add(f.get(30, TimeUnit.SECONDS));
            }
            return ids;
        }
    }

    private static Consumer<byte[]> consumer(String topic, String sub, SubscriptionType type)
            throws PulsarClientException {
        return client.newConsumer()
                .topic(topic)
                .subscriptionName(sub)
                .subscriptionType(type)
                .subscriptionInitialPosition(SubscriptionInitialPosition.Earliest)
                .acknowledgmentGroupTime(0, TimeUnit.MILLISECONDS)
                .subscribe();
    }

    /** Receives until nothing arrives for {@code quietMillis}, acknowledging each; the payloads. */
    private static List<String> drain(Consumer<byte[]> c, int quietMillis) throws PulsarClientException {
        List<String> got = new ArrayList<>();
        Message<byte[]> m;
        while ((m = c.receive(quietMillis, TimeUnit.MILLISECONDS)) != null) {
            got.add(new String(m.getValue(), StandardCharsets.UTF_8));
            c.acknowledge(m);
        }
        return got;
    }

    @Test
    void exclusiveAdmitsOneConsumer() throws Exception {
        String t = topic("exclusive");
        try (Consumer<byte[]> c = consumer(t, "ex", SubscriptionType.Exclusive)) {
            assertThatThrownBy(() -> consumer(t, "ex", SubscriptionType.Exclusive))
                    .isInstanceOf(PulsarClientException.ConsumerBusyException.class);
            send(t, "e", 10, false);
            assertThat(RoundTrips.receive(c, 10)).isEqualTo(RoundTrips.expected("e", 0, 10));
        }
    }

    @Test
    void failoverDeliversToOneActiveConsumerThenTheOther() throws Exception {
        String t = topic("failover");
        Consumer<byte[]> a = consumer(t, "fo", SubscriptionType.Failover);
        Consumer<byte[]> b = consumer(t, "fo", SubscriptionType.Failover);
        send(t, "f", 10, false);
        List<String> fromA = drain(a, 1500);
        List<String> fromB = drain(b, 500);
        assertThat(fromA.isEmpty() != fromB.isEmpty())
                .as("one active consumer: a=%s b=%s", fromA, fromB)
                .isTrue();
        List<String> first = fromA.isEmpty() ? fromB : fromA;
        assertThat(first).isEqualTo(RoundTrips.expected("f", 0, 10));
        Consumer<byte[]> active = fromA.isEmpty() ? b : a;
        Consumer<byte[]> standby = fromA.isEmpty() ? a : b;
        active.close();
        send(t, "g", 10, false);
        assertThat(RoundTrips.receive(standby, 10)).isEqualTo(RoundTrips.expected("g", 0, 10));
        standby.close();
    }

    @Test
    @SuppressWarnings("ReferenceEquality") // which of the two consumers: identity on purpose
    void sharedSpreadsMessagesWithoutDuplicates() throws Exception {
        String t = topic("shared");
        try (Consumer<byte[]> a = client.newConsumer()
                        .topic(t)
                        .subscriptionName("sh")
                        .subscriptionType(SubscriptionType.Shared)
                        .receiverQueueSize(5)
                        .subscribe();
                Consumer<byte[]> b = client.newConsumer()
                        .topic(t)
                        .subscriptionName("sh")
                        .subscriptionType(SubscriptionType.Shared)
                        .receiverQueueSize(5)
                        .subscribe()) {
            send(t, "s", 60, false);
            List<String> all = new ArrayList<>();
            List<String> fromA = new ArrayList<>();
            List<String> fromB = new ArrayList<>();
            long deadline = System.currentTimeMillis() + 60_000;
            while (all.size() < 60 && System.currentTimeMillis() < deadline) {
                for (Consumer<byte[]> c : List.of(a, b)) {
                    Message<byte[]> m = c.receive(50, TimeUnit.MILLISECONDS);
                    if (m != null) {
                        String v = new String(m.getValue(), StandardCharsets.UTF_8);
                        all.add(v);
                        (c == a ? fromA : fromB).add(v);
                        c.acknowledge(m);
                    }
                }
            }
            assertThat(all)
                    .hasSize(60)
                    .doesNotHaveDuplicates()
                    .containsExactlyInAnyOrderElementsOf(RoundTrips.expected("s", 0, 60));
            assertThat(fromA).as("consumer a's share").isNotEmpty();
            assertThat(fromB).as("consumer b's share").isNotEmpty();
        }
    }

    @Test
    void keySharedKeepsEachKeyOnOneConsumerInOrder() throws Exception {
        String t = topic("key-shared");
        try (Consumer<byte[]> a = consumer(t, "ks", SubscriptionType.Key_Shared);
                Consumer<byte[]> b = consumer(t, "ks", SubscriptionType.Key_Shared);
                Producer<byte[]> p =
                        client.newProducer().topic(t).enableBatching(false).create()) {
            for (int i = 0; i < 50; i++) {
                p.newMessage()
                        .key("k" + (i % 10))
                        .value(("k" + (i % 10) + ":" + i).getBytes(StandardCharsets.UTF_8))
                        .send();
            }
            Map<String, Set<Consumer<byte[]>>> owners = new HashMap<>();
            Map<String, List<Integer>> order = new HashMap<>();
            int total = 0;
            long deadline = System.currentTimeMillis() + 60_000;
            while (total < 50 && System.currentTimeMillis() < deadline) {
                for (Consumer<byte[]> c : List.of(a, b)) {
                    Message<byte[]> m = c.receive(50, TimeUnit.MILLISECONDS);
                    if (m != null) {
                        total++;
                        owners.computeIfAbsent(m.getKey(), k -> new HashSet<>()).add(c);
                        order.computeIfAbsent(m.getKey(), k -> new ArrayList<>())
                                .add(Integer.parseInt(
                                        new String(m.getValue(), StandardCharsets.UTF_8).split(":", -1)[1]));
                        c.acknowledge(m);
                    }
                }
            }
            assertThat(total).isEqualTo(50);
            assertThat(owners).hasSize(10);
            owners.forEach(
                    (k, cs) -> assertThat(cs).as("consumers of key %s", k).hasSize(1));
            order.forEach(
                    (k, l) -> assertThat(l).as("order of key %s", k).isSorted().hasSize(5));
        }
    }

    @Test
    void batchingPacksMessagesIntoFewerEntries() throws Exception {
        String batched = topic("batched");
        String single = topic("unbatched");
        try (Consumer<byte[]> cb = consumer(batched, "b", SubscriptionType.Exclusive);
                Consumer<byte[]> cs = consumer(single, "b", SubscriptionType.Exclusive)) {
            send(batched, "b", 50, true);
            send(single, "u", 50, false);
            assertThat(RoundTrips.receive(cb, 50)).isEqualTo(RoundTrips.expected("b", 0, 50));
            assertThat(RoundTrips.receive(cs, 50)).isEqualTo(RoundTrips.expected("u", 0, 50));
        }
        PersistentTopicInternalStats b = BROKER.admin().topics().getInternalStats(batched);
        PersistentTopicInternalStats u = BROKER.admin().topics().getInternalStats(single);
        assertThat(b.numberOfEntries).as("entries of 50 batched messages").isBetween(1L, 49L);
        assertThat(u.numberOfEntries).isEqualTo(50);
        assertThat(BROKER.admin().topics().getStats(batched).getMsgInCounter()).isEqualTo(50);
    }

    @Test
    void individualAcksRedeliverOnlyTheUnacknowledged() throws Exception {
        String t = topic("individual");
        send(t, "i", 10, false);
        try (Consumer<byte[]> c = consumer(t, "ind", SubscriptionType.Shared)) {
            for (int i = 0; i < 10; i++) {
                Message<byte[]> m = c.receive(20, TimeUnit.SECONDS);
                assertThat(m).isNotNull();
                if (i % 2 == 1) {
                    c.acknowledge(m);
                }
            }
        }
        try (Consumer<byte[]> c = consumer(t, "ind", SubscriptionType.Shared)) {
            assertThat(drain(c, 2000)).isEqualTo(List.of("i-0", "i-2", "i-4", "i-6", "i-8"));
        }
    }

    @Test
    void cumulativeAckAcknowledgesEverythingUpToTheMessage() throws Exception {
        String t = topic("cumulative");
        send(t, "c", 10, false);
        try (Consumer<byte[]> c = consumer(t, "cum", SubscriptionType.Exclusive)) {
            Message<byte[]> m = null;
            for (int i = 0; i < 6; i++) {
                m = c.receive(20, TimeUnit.SECONDS);
            }
            assertThat(new String(m.getValue(), StandardCharsets.UTF_8)).isEqualTo("c-5");
            c.acknowledgeCumulative(m);
        }
        try (Consumer<byte[]> c = consumer(t, "cum", SubscriptionType.Exclusive)) {
            assertThat(drain(c, 2000)).isEqualTo(RoundTrips.expected("c", 6, 10));
        }
        // The subscription's mark-delete position is stored with the cursor.
        assertThat(BROKER.admin()
                        .topics()
                        .getStats(t)
                        .getSubscriptions()
                        .get("cum")
                        .getMsgBacklog())
                .isZero();
    }

    @Test
    void batchIndexAcksAreKeptAcrossReconnects() throws Exception {
        String t = topic("batch-index");
        List<MessageId> ids = send(t, "x", 10, true);
        assertThat(new HashSet<>(
                        ids.stream().map(id -> id.toString().split(":", -1)[1]).toList()))
                .as("one entry for the batch")
                .hasSize(1);
        try (Consumer<byte[]> c = client.newConsumer()
                .topic(t)
                .subscriptionName("bi")
                .subscriptionType(SubscriptionType.Shared)
                .enableBatchIndexAcknowledgment(true)
                // Each acknowledge() returns once the broker has the ack.
                .acknowledgmentGroupTime(0, TimeUnit.MILLISECONDS)
                .isAckReceiptEnabled(true)
                .subscriptionInitialPosition(SubscriptionInitialPosition.Earliest)
                .subscribe()) {
            for (int i = 0; i < 10; i++) {
                Message<byte[]> m = c.receive(20, TimeUnit.SECONDS);
                if (i < 4) {
                    c.acknowledge(m);
                }
            }
        }
        try (Consumer<byte[]> c = client.newConsumer()
                .topic(t)
                .subscriptionName("bi")
                .subscriptionType(SubscriptionType.Shared)
                .enableBatchIndexAcknowledgment(true)
                .subscriptionInitialPosition(SubscriptionInitialPosition.Earliest)
                .subscribe()) {
            assertThat(drain(c, 2000)).isEqualTo(RoundTrips.expected("x", 4, 10));
        }
    }

    @Test
    void negativeAckRedeliversWithACount() throws Exception {
        String t = topic("nack");
        try (Consumer<byte[]> c = client.newConsumer()
                .topic(t)
                .subscriptionName("n")
                .subscriptionType(SubscriptionType.Shared)
                .negativeAckRedeliveryDelay(200, TimeUnit.MILLISECONDS)
                .subscribe()) {
            send(t, "n", 3, false);
            Message<byte[]> first = c.receive(20, TimeUnit.SECONDS);
            assertThat(first.getRedeliveryCount()).isZero();
            c.negativeAcknowledge(first);
            List<String> rest = new ArrayList<>();
            Message<byte[]> again = null;
            for (int i = 0; i < 3; i++) {
                Message<byte[]> m = c.receive(20, TimeUnit.SECONDS);
                assertThat(m).isNotNull();
                c.acknowledge(m);
                if (m.getMessageId().equals(first.getMessageId())) {
                    again = m;
                } else {
                    rest.add(new String(m.getValue(), StandardCharsets.UTF_8));
                }
            }
            assertThat(again).as("n-0 redelivered").isNotNull();
            assertThat(again.getRedeliveryCount()).isEqualTo(1);
            assertThat(rest).containsExactly("n-1", "n-2");
            RoundTrips.assertNothingMore(c, 1000);
        }
    }

    @Test
    void ackTimeoutRedeliversUnacknowledgedMessages() throws Exception {
        String t = topic("ack-timeout");
        try (Consumer<byte[]> c = client.newConsumer()
                .topic(t)
                .subscriptionName("at")
                .subscriptionType(SubscriptionType.Shared)
                .ackTimeout(1, TimeUnit.SECONDS)
                .ackTimeoutTickTime(100, TimeUnit.MILLISECONDS)
                .subscribe()) {
            send(t, "a", 2, false);
            Message<byte[]> m0 = c.receive(20, TimeUnit.SECONDS);
            Message<byte[]> m1 = c.receive(20, TimeUnit.SECONDS);
            c.acknowledge(m1);
            Message<byte[]> again = c.receive(20, TimeUnit.SECONDS);
            assertThat(again).isNotNull();
            assertThat(again.getMessageId()).isEqualTo(m0.getMessageId());
            assertThat(new String(again.getValue(), StandardCharsets.UTF_8))
                    .isEqualTo(new String(m0.getValue(), StandardCharsets.UTF_8));
            c.acknowledge(again);
            RoundTrips.assertNothingMore(c, 2000);
        }
    }

    @Test
    void deadLetterTopicReceivesMessagesPastTheirRedeliveries() throws Exception {
        String t = topic("dlq-source");
        String dlq = topic("dlq-target");
        try (Consumer<byte[]> dead = client.newConsumer()
                        .topic(dlq)
                        .subscriptionName("d")
                        .subscriptionInitialPosition(SubscriptionInitialPosition.Earliest)
                        .subscribe();
                Consumer<byte[]> c = client.newConsumer()
                        .topic(t)
                        .subscriptionName("src")
                        .subscriptionType(SubscriptionType.Shared)
                        .negativeAckRedeliveryDelay(100, TimeUnit.MILLISECONDS)
                        .deadLetterPolicy(DeadLetterPolicy.builder()
                                .maxRedeliverCount(2)
                                .deadLetterTopic(dlq)
                                .build())
                        .subscribe()) {
            send(t, "d", 2, false);
            // d-0 always fails, d-1 is acknowledged.
            long deadline = System.currentTimeMillis() + 60_000;
            int attemptsOfD0 = 0;
            boolean d1 = false;
            Message<byte[]> fromDlq = null;
            while (fromDlq == null && System.currentTimeMillis() < deadline) {
                Message<byte[]> m = c.receive(200, TimeUnit.MILLISECONDS);
                if (m != null) {
                    if (new String(m.getValue(), StandardCharsets.UTF_8).equals("d-0")) {
                        attemptsOfD0++;
                        c.negativeAcknowledge(m);
                    } else {
                        d1 = true;
                        c.acknowledge(m);
                    }
                }
                fromDlq = dead.receive(10, TimeUnit.MILLISECONDS);
            }
            assertThat(fromDlq).as("d-0 in the dead-letter topic").isNotNull();
            assertThat(new String(fromDlq.getValue(), StandardCharsets.UTF_8)).isEqualTo("d-0");
            assertThat(attemptsOfD0).isEqualTo(3);
            assertThat(d1).isTrue();
            dead.acknowledge(fromDlq);
            RoundTrips.assertNothingMore(dead, 1000);
            RoundTrips.assertNothingMore(c, 1000);
        }
    }

    @Test
    void partitionedTopicSpreadsAndDeliversEveryMessage() throws Exception {
        String t = topic("partitioned");
        BROKER.admin().topics().createPartitionedTopic(t, 3);
        try (Consumer<byte[]> c = consumer(t, "p", SubscriptionType.Shared);
                Producer<byte[]> p =
                        client.newProducer().topic(t).enableBatching(false).create()) {
            for (int i = 0; i < 30; i++) {
                p.newMessage()
                        .key("key-" + i)
                        .value(("p-" + i).getBytes(StandardCharsets.UTF_8))
                        .send();
            }
            List<String> got = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                Message<byte[]> m = c.receive(20, TimeUnit.SECONDS);
                assertThat(m).as("message %d (got %s)", i, got).isNotNull();
                got.add(new String(m.getValue(), StandardCharsets.UTF_8));
                c.acknowledge(m);
            }
            assertThat(got)
                    .doesNotHaveDuplicates()
                    .containsExactlyInAnyOrderElementsOf(RoundTrips.expected("p", 0, 30));
            RoundTrips.assertNothingMore(c, 1000);
        }
        var stats = BROKER.admin().topics().getPartitionedStats(t, true);
        assertThat(stats.getMsgInCounter()).isEqualTo(30);
        assertThat(stats.getPartitions()).hasSize(3);
        stats.getPartitions()
                .forEach((name, s) -> assertThat(s.getMsgInCounter()).as(name).isPositive());
    }
}
