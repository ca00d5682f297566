package dev.lakestream.tests.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lakestream.tests.BrokerProcess;
import dev.lakestream.tests.KeyedTraffic;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.pulsar.client.admin.LongRunningProcessStatus;
import org.apache.pulsar.client.admin.PulsarAdmin;
import org.apache.pulsar.client.api.Consumer;
import org.apache.pulsar.client.api.Message;
import org.apache.pulsar.client.api.MessageId;
import org.apache.pulsar.client.api.Producer;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.Reader;
import org.apache.pulsar.client.api.Schema;
import org.apache.pulsar.client.api.SubscriptionInitialPosition;
import org.apache.pulsar.client.api.schema.GenericRecord;
import org.apache.pulsar.client.api.transaction.Transaction;
import org.apache.pulsar.common.schema.SchemaInfo;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Issue 14, scenario 7: the owner of a topic killed ({@code SIGKILL}) in the middle of a compaction, of a schema update
 * and of a transaction commit, the other broker taking the topic over. Each operation either happened or did not, and
 * the next owner sees a consistent state: the compacted view holds the latest value of every key it covers and agrees
 * with the topic; the schema is the old or the new version, once, and producers and consumers of both work; the
 * transaction is committed (all its messages delivered) or aborted (none).
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class BrokerKilledMidOperationTest {

    private static final Logger LOG = LoggerFactory.getLogger(BrokerKilledMidOperationTest.class);

    static final FaultReport REPORT = new FaultReport(
            "## Measured: broker killed mid-operation",
            "Two broker processes, S3Proxy, Oxia, `metadataStoreSessionTimeoutMillis=5000`; the owner of a topic (in "
                    + "the namespace with deduplication on) killed with SIGKILL while it compacts the topic, adds a "
                    + "schema version or commits a transaction; the other broker takes the topic over. *recover*: from "
                    + "the kill to the first message acknowledged after it. *heap / direct max*: both brokers (the "
                    + "killed one until the kill), from the start of the case to the end of its checks.");

    @RegisterExtension
    static final FaultClusterExtension CLUSTER = new FaultClusterExtension("killed", 2, REPORT);

    private static FaultCluster cluster() {
        return CLUSTER.cluster();
    }

    private static final int COMPACTION_MESSAGES = 3000;
    private static final int COMPACTION_KEYS = 300;
    private static final int TXN_MESSAGES = 50;

    /** The memory of the case running: both brokers, the killed one until the kill and the next owner throughout. */
    private MemorySampler memory;

    @BeforeEach
    void sampleMemory() {
        memory = new MemorySampler(cluster().brokers());
    }

    @AfterEach
    void stopSampling() throws InterruptedException {
        memory.close();
    }

    @Test
    @Order(1)
    void killedDuringCompactionLeavesAViewConsistentWithTheTopic() throws Exception {
        String topic = topic("killed-compaction");
        PulsarClient client = CLUSTER.client();
        Map<String, Integer> latest = new HashMap<>();
        long killedAt;
        long recoveredAt;
        try (Producer<byte[]> p = client.newProducer()
                .topic(topic)
                .enableBatching(false)
                .sendTimeout(0, TimeUnit.SECONDS)
                .blockIfQueueFull(true)
                .create()) {
            List<CompletableFuture<MessageId>> sends = new ArrayList<>();
            for (int i = 0; i < COMPACTION_MESSAGES; i++) {
                String key = "k" + (i % COMPACTION_KEYS);
                sends.add(p.newMessage().key(key).value(bytes(i)).sendAsync());
                latest.put(key, i);
            }
            CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
            BrokerProcess owner = ownerOf(topic);
            try (PulsarAdmin admin = cluster().admin()) {
                admin.topics().triggerCompaction(topic);
            }
            Thread.sleep(100);
            killedAt = System.nanoTime();
            owner.kill();
            LOG.info("Killed {} while it compacted {}", owner.name(), topic);
            p.newMessage().key("k0").value(bytes(COMPACTION_MESSAGES)).send();
            recoveredAt = System.nanoTime();
            latest.put("k0", COMPACTION_MESSAGES);
        }

        // The view as the next owner serves it: a compacted reader gets the view, then the topic after it.
        List<Message<byte[]>> compacted = readAll(client, topic, true);
        boolean viewBeforeKill = compacted.size() < COMPACTION_MESSAGES + 1;
        assertLatestPerKey(compacted, latest);
        KeyedTraffic.Stored stored = KeyedTraffic.stored(client, topic);
        List<Integer> lost = new ArrayList<>();
        for (int i = 0; i <= COMPACTION_MESSAGES; i++) {
            if (!stored.counts().containsKey(i)) {
                lost.add(i);
            }
        }

        // A compaction on the new owner completes, and its view holds exactly the latest value of each key.
        compactAndWait(topic);
        List<Message<byte[]>> after = readAll(client, topic, true);
        assertLatestPerKey(after, latest);
        assertThat(after)
                .as("one message per key in the view after compacting again")
                .hasSize(COMPACTION_KEYS);

        String note = (viewBeforeKill
                        ? "the compaction had finished before the kill"
                        : "the compaction had not " + "finished: no view")
                + "; compacted reader then read " + compacted.size() + " of "
                + (COMPACTION_MESSAGES + 1) + " messages, the latest value of every key; compacted again on the new "
                + "owner: " + after.size() + " messages, one per key";
        memory.close();
        REPORT.add(new FaultReport.Row(
                "Owner killed during compaction",
                true,
                COMPACTION_MESSAGES + 1,
                0,
                lost.size(),
                stored.storedTwice(),
                0,
                0,
                stored.idsNotRising(),
                seconds(recoveredAt - killedAt),
                Double.NaN,
                memory.maxHeapBytes(),
                memory.maxDirectBytes(),
                note));
        assertThat(lost).as("acknowledged messages not in the topic").isEmpty();
        assertThat(stored.storedTwice()).as("messages stored twice").isZero();
        assertThat(stored.idsNotRising()).as("stored ids that do not rise").isZero();
        assertThat(stored.afterEnd())
                .as("messages read after the reader's end (%s)", stored.end())
                .isZero();
    }

    @Test
    @Order(2)
    void killedDuringASchemaUpdateLeavesTheOldOrTheNewVersion() throws Exception {
        cluster().restartStoppedBrokers();
        String topic = topic("killed-schema");
        PulsarClient client = CLUSTER.client();
        List<String> acked = new ArrayList<>();
        long killedAt;
        long recoveredAt;
        boolean newProducerBeforeTakeover;
        int versionsAfterKill;
        try (Producer<V1> p1 = client.newProducer(Schema.AVRO(V1.class))
                .topic(topic)
                .sendTimeout(0, TimeUnit.SECONDS)
                .create()) {
            p1.send(new V1("before"));
            acked.add("before");
            BrokerProcess owner = ownerOf(topic);
            CompletableFuture<Producer<V2>> creating = client.newProducer(Schema.AVRO(V2.class))
                    .topic(topic)
                    .sendTimeout(0, TimeUnit.SECONDS)
                    .createAsync();
            Thread.sleep(20);
            killedAt = System.nanoTime();
            owner.kill();
            LOG.info("Killed {} while a producer with a new schema version connected to {}", owner.name(), topic);
            p1.send(new V1("after-v1"));
            recoveredAt = System.nanoTime();
            acked.add("after-v1");
            Producer<V2> p2;
            try {
                p2 = creating.get(60, TimeUnit.SECONDS);
                newProducerBeforeTakeover = true;
            } catch (Exception e) {
                LOG.info("The producer with the new schema failed at the kill: {}", e.toString());
                newProducerBeforeTakeover = false;
                p2 = null;
            }
            try (PulsarAdmin admin = cluster().admin()) {
                List<SchemaInfo> versions = admin.schemas().getAllSchemas(topic);
                versionsAfterKill = versions.size();
                assertThat(versions).as("schema versions after the kill").hasSizeBetween(1, 2);
                assertThat(versions.get(0).getSchemaDefinition())
                        .isEqualTo(Schema.AVRO(V1.class).getSchemaInfo().getSchemaDefinition());
                if (versions.size() == 2) {
                    assertThat(versions.get(1).getSchemaDefinition())
                            .isEqualTo(Schema.AVRO(V2.class).getSchemaInfo().getSchemaDefinition());
                }
            }
            try (Producer<V2> again = client.newProducer(Schema.AVRO(V2.class))
                    .topic(topic)
                    .sendTimeout(0, TimeUnit.SECONDS)
                    .create()) {
                again.send(new V2("after-v2", "x"));
                acked.add("after-v2");
            }
            if (p2 != null) {
                p2.send(new V2("late-v2", "y"));
                acked.add("late-v2");
                p2.close();
            }
            try (PulsarAdmin admin = cluster().admin()) {
                assertThat(admin.schemas().getAllSchemas(topic))
                        .as("versions once both producers ran: old and new, " + "each stored once")
                        .hasSize(2);
            }
        }
        // A consumer that takes each message's own schema version (and registers none) reads every one of them.
        List<String> received = new ArrayList<>();
        try (Consumer<GenericRecord> consumer = client.newConsumer(Schema.AUTO_CONSUME())
                .topic(topic)
                .subscriptionName("check")
                .subscriptionInitialPosition(SubscriptionInitialPosition.Earliest)
                .subscribe()) {
            for (Message<GenericRecord> m = consumer.receive(10, TimeUnit.SECONDS);
                    m != null;
                    m = consumer.receive(3, TimeUnit.SECONDS)) {
                received.add(String.valueOf(m.getValue().getField("name")));
                consumer.acknowledge(m);
            }
        }
        long lost = acked.stream().filter(a -> !received.contains(a)).count();
        long twice = received.stream()
                .distinct()
                .filter(r -> received.indexOf(r) != received.lastIndexOf(r))
                .count();
        String note = "schema versions right after the kill: " + versionsAfterKill + " ("
                + (versionsAfterKill == 2 ? "new version stored" : "old version only") + "); producer with the new "
                + "schema " + (newProducerBeforeTakeover ? "created" : "failed, created again after the takeover")
                + "; old and new producers and a consumer of both versions worked on the new owner";
        memory.close();
        REPORT.add(new FaultReport.Row(
                "Owner killed during a schema update",
                true,
                acked.size(),
                0,
                (int) lost,
                twice,
                0,
                0,
                0,
                seconds(recoveredAt - killedAt),
                Double.NaN,
                memory.maxHeapBytes(),
                memory.maxDirectBytes(),
                note));
        assertThat(received).as("every acknowledged message delivered once").containsExactlyInAnyOrderElementsOf(acked);
    }

    @Test
    @Order(3)
    void killedDuringATransactionCommitLeavesItCommittedOrAborted() throws Exception {
        cluster().restartStoppedBrokers();
        String topic = topic("killed-txn");
        PulsarClient client = CLUSTER.client();
        boolean commitAnswered;
        long killedAt;
        long recoveredAt;
        Map<String, Integer> received = new HashMap<>();
        // Messages the application took from the consumer's queue while it was not connected: what the killed owner
        // had pushed before it died. Their acknowledgements went to no broker (the client drops acks it could not
        // send when it reconnects), so the next owner delivers them again: Pulsar's at-least-once, not a storage
        // fault. Any other message delivered twice is one.
        Set<String> takenWhileDisconnected = new HashSet<>();
        try (PulsarClient txnClient = PulsarClient.builder()
                        .serviceUrl("pulsar://"
                                + cluster().brokers().stream()
                                        .map(BrokerProcess::brokerAddress)
                                        .collect(Collectors.joining(",")))
                        .enableTransaction(true)
                        .operationTimeout(10, TimeUnit.SECONDS)
                        .keepAliveInterval(5, TimeUnit.SECONDS)
                        .build();
                Consumer<byte[]> consumer = client.newConsumer()
                        .topic(topic)
                        .subscriptionName("check")
                        .subscriptionInitialPosition(SubscriptionInitialPosition.Earliest)
                        .subscribe();
                Producer<byte[]> p = txnClient
                        .newProducer()
                        .topic(topic)
                        .enableBatching(false)
                        .sendTimeout(0, TimeUnit.SECONDS)
                        .create()) {
            p.send("before".getBytes(StandardCharsets.UTF_8));
            // Undecided transactions are aborted by the coordinator after this long, wherever it runs by then.
            Transaction txn = txnClient
                    .newTransaction()
                    .withTransactionTimeout(15, TimeUnit.SECONDS)
                    .build()
                    .get(30, TimeUnit.SECONDS);
            List<CompletableFuture<MessageId>> sends = new ArrayList<>();
            for (int i = 0; i < TXN_MESSAGES; i++) {
                sends.add(p.newMessage(txn)
                        .value(("txn-" + i).getBytes(StandardCharsets.UTF_8))
                        .sendAsync());
            }
            CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
            BrokerProcess owner = ownerOf(topic);
            CompletableFuture<Void> commit = txn.commit();
            Thread.sleep(5);
            killedAt = System.nanoTime();
            owner.kill();
            LOG.info("Killed {} while a transaction on {} committed", owner.name(), topic);
            try {
                commit.get(60, TimeUnit.SECONDS);
                commitAnswered = true;
            } catch (Exception e) {
                LOG.info("The commit failed at the kill: {}", e.toString());
                commitAnswered = false;
            }
            p.send("after".getBytes(StandardCharsets.UTF_8));
            recoveredAt = System.nanoTime();
            // "after" is delivered only once the transaction before it is decided (committed, or aborted on timeout).
            while (!received.containsKey("after")) {
                Message<byte[]> m = consumer.receive(60, TimeUnit.SECONDS);
                assertThat(m)
                        .as("next message; received so far %s", received.keySet())
                        .isNotNull();
                take(consumer, m, received, takenWhileDisconnected);
            }
            // Anything delivered after it (a transaction message out of place, or one twice) is counted too.
            for (Message<byte[]> m = consumer.receive(2, TimeUnit.SECONDS);
                    m != null;
                    m = consumer.receive(2, TimeUnit.SECONDS)) {
                take(consumer, m, received, takenWhileDisconnected);
            }
        }
        long txnDelivered =
                received.keySet().stream().filter(k -> k.startsWith("txn-")).count();
        List<String> redelivered = received.entrySet().stream()
                .filter(e -> e.getValue() > 1 && takenWhileDisconnected.contains(e.getKey()))
                .map(Map.Entry::getKey)
                .sorted()
                .toList();
        List<String> deliveredTwice = received.entrySet().stream()
                .filter(e -> e.getValue() > 1 && !takenWhileDisconnected.contains(e.getKey()))
                .map(Map.Entry::getKey)
                .sorted()
                .toList();
        long twice = deliveredTwice.size();
        String outcome = txnDelivered == TXN_MESSAGES ? "committed" : txnDelivered == 0 ? "aborted" : "PARTIAL";
        String note = "transaction " + outcome + " (" + txnDelivered + " of " + TXN_MESSAGES + " delivered); the "
                + "client's commit " + (commitAnswered ? "succeeded" : "failed")
                + (deliveredTwice.isEmpty() ? "" : "; delivered twice: " + deliveredTwice)
                + (redelivered.isEmpty()
                        ? ""
                        : "; delivered again after the consumer's reconnect (taken from its queue while disconnected,"
                                + " so never acknowledged to a broker): " + redelivered);
        memory.close();
        REPORT.add(new FaultReport.Row(
                "Owner killed during a transaction commit",
                true,
                TXN_MESSAGES + 2,
                0,
                received.containsKey("before") && received.containsKey("after") ? 0 : 1,
                twice,
                redelivered.size(),
                0,
                0,
                seconds(recoveredAt - killedAt),
                Double.NaN,
                memory.maxHeapBytes(),
                memory.maxDirectBytes(),
                note));
        assertThat(received).as("the messages outside the transaction").containsKeys("before", "after");
        assertThat(txnDelivered)
                .as("messages of the transaction delivered: all or none")
                .isIn(0L, (long) TXN_MESSAGES);
        if (commitAnswered) {
            assertThat(txnDelivered).as("a commit the client saw succeed").isEqualTo(TXN_MESSAGES);
        }
        assertThat(deliveredTwice).as("messages delivered twice").isEmpty();
    }

    // ------------------------------------------------------------------------------------------------- helpers

    /** Counts and acknowledges a message, noting whether the consumer was connected when it was taken. */
    private static void take(
            Consumer<byte[]> consumer,
            Message<byte[]> m,
            Map<String, Integer> received,
            Set<String> takenWhileDisconnected)
            throws org.apache.pulsar.client.api.PulsarClientException {
        String value = new String(m.getValue(), StandardCharsets.UTF_8);
        if (!consumer.isConnected() && !received.containsKey(value)) {
            LOG.info("took {} ({}) from the consumer's queue while it was not connected", value, m.getMessageId());
            takenWhileDisconnected.add(value);
        }
        received.merge(value, 1, Integer::sum);
        consumer.acknowledge(m);
    }

    private static String topic(String name) {
        return "persistent://" + FaultScenario.DEDUP_NAMESPACE + "/" + name;
    }

    private static byte[] bytes(int n) {
        return Integer.toString(n).getBytes(StandardCharsets.UTF_8);
    }

    private static double seconds(long nanos) {
        return nanos / 1e9;
    }

    private static BrokerProcess ownerOf(String topic) throws Exception {
        try (PulsarAdmin admin = cluster().admin()) {
            return cluster().broker(admin.lookups().lookupTopic(topic));
        }
    }

    private static List<Message<byte[]>> readAll(PulsarClient client, String topic, boolean compacted)
            throws Exception {
        List<Message<byte[]>> out = new ArrayList<>();
        try (Reader<byte[]> reader = client.newReader()
                .topic(topic)
                .readCompacted(compacted)
                .startMessageId(MessageId.earliest)
                .create()) {
            while (reader.hasMessageAvailable()) {
                Message<byte[]> m = reader.readNext(30, TimeUnit.SECONDS);
                assertThat(m)
                        .as("next message of %s (compacted %s) after %s", topic, compacted, out.size())
                        .isNotNull();
                out.add(m);
            }
        }
        return out;
    }

    /** Within each key values rise, and the last one read is the key's latest. */
    private static void assertLatestPerKey(List<Message<byte[]>> read, Map<String, Integer> latest) {
        Map<String, Integer> last = new HashMap<>();
        for (Message<byte[]> m : read) {
            int v = Integer.parseInt(new String(m.getValue(), StandardCharsets.UTF_8));
            Integer before = last.put(m.getKey(), v);
            assertThat(before == null || before < v)
                    .as("key %s: %s after %s", m.getKey(), v, before)
                    .isTrue();
        }
        assertThat(last).as("the latest value of every key").isEqualTo(latest);
    }

    private static void compactAndWait(String topic) throws Exception {
        try (PulsarAdmin admin = cluster().admin()) {
            admin.topics().triggerCompaction(topic);
            await("compaction of " + topic)
                    .atMost(Duration.ofMinutes(1))
                    .ignoreExceptionsInstanceOf(Exception.class)
                    .until(() -> {
                        LongRunningProcessStatus s = admin.topics().compactionStatus(topic);
                        assertThat(s.status)
                                .as("compaction status (%s)", s.lastError)
                                .isNotEqualTo(LongRunningProcessStatus.Status.ERROR);
                        return s.status == LongRunningProcessStatus.Status.SUCCESS;
                    });
        }
    }

    /** The record before the schema update. */
    public static class V1 {
        public String name;

        public V1() {}

        V1(String name) {
            this.name = name;
        }
    }

    /** The record after it: one more optional field (nullable, default null), a compatible change. */
    public static class V2 {
        public String name;
        public String note;

        public V2() {}

        V2(String name, String note) {
            this.name = name;
            this.note = note;
        }
    }
}
