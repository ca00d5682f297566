package dev.lakestream.tests;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lakestream.pulsar.LakestreamManagedLedgerStorage;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.pulsar.client.admin.LongRunningProcessStatus;
import org.apache.pulsar.client.admin.PulsarAdmin;
import org.apache.pulsar.client.api.CompressionType;
import org.apache.pulsar.client.api.Consumer;
import org.apache.pulsar.client.api.Message;
import org.apache.pulsar.client.api.MessageId;
import org.apache.pulsar.client.api.Producer;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.Reader;
import org.apache.pulsar.client.api.SubscriptionInitialPosition;
import org.apache.pulsar.client.api.SubscriptionType;
import org.apache.pulsar.common.naming.TopicName;
import org.apache.pulsar.common.policies.data.CompactionStats;
import org.junit.jupiter.api.Test;

/**
 * Topic compaction on a real broker with Lakestream's compaction service, seen through the real client and admin:
 * {@link CompactionTest} runs these on the embedded stores, {@link CompactionOnS3ProxyAndOxiaTest} on S3Proxy + Oxia.
 */
abstract class CompactionScenarios {

    /** The broker configuration key and value that turn Lakestream's compaction on. */
    static final String FACTORY_KEY = "compactionServiceFactoryClassName";

    static final String FACTORY = "dev.lakestream.pulsar.compaction.LakestreamCompactionServiceFactory";

    abstract PulsarBrokerExtension broker();

    /** The broker every scenario class registers: ours as the compaction service, the threshold checked each second. */
    static PulsarBrokerExtension configure(PulsarBrokerExtension b) {
        return b.config(FACTORY_KEY, FACTORY).config("brokerServiceCompactionMonitorIntervalInSeconds", "1");
    }

    // ---------------------------------------------------------------------------------------------------- tests

    @Test
    void compactedReaderSeesTheLatestValuePerKeyThenNewMessages() throws Exception {
        String topic = "persistent://public/default/compact-basic";
        try (PulsarClient client = broker().newClient();
                Producer<byte[]> producer =
                        client.newProducer().topic(topic).enableBatching(false).create()) {
            send(producer, "k1", "a");
            send(producer, "k2", "a");
            send(producer, "k1", "b");
            send(producer, "k3", "a");
            send(producer, "k2", null);
            producer.send("no-key".getBytes(UTF_8));
            send(producer, "k4", "a");
            send(producer, "k3", "b");

            compactAndWait(topic);
            // Removed: k1=a and k3=a (replaced), k2's tombstone, the message without a key.
            assertThat(compactionStats(topic).getLastCompactionRemovedEventCount())
                    .isEqualTo(4);

            try (Reader<byte[]> reader = reader(client, topic, true)) {
                assertThat(readAvailable(reader)).containsExactly("k1=b", "k4=a", "k3=b");
                send(producer, "k5", "new");
                send(producer, "k1", "c");
                assertThat(readN(reader, 2)).containsExactly("k5=new", "k1=c");
            }
            // A reader of the topic itself still sees every message.
            try (Reader<byte[]> reader = reader(client, topic, false)) {
                assertThat(readAvailable(reader))
                        .containsExactly(
                                "k1=a", "k2=a", "k1=b", "k3=a", "k2=null", "=no-key", "k4=a", "k3=b", "k5=new", "k1=c");
            }
            // A second run starts from the first one's view.
            compactAndWait(topic);
            try (Reader<byte[]> reader = reader(client, topic, true)) {
                assertThat(readAvailable(reader)).containsExactly("k4=a", "k3=b", "k5=new", "k1=c");
            }
            CompactionStats stats = compactionStats(topic);
            assertThat(stats.getLastCompactionRemovedEventCount())
                    .as("k1=b replaced")
                    .isEqualTo(1);
            assertThat(stats.getLastCompactionSucceedTimestamp()).isPositive();
            assertThat(stats.getLastCompactionFailedTimestamp()).isZero();
            // The same statistics in the broker's Prometheus metrics, as operators' dashboards read them.
            String label = "topic=\"" + topic + "\"";
            String[] metrics = new String[1];
            waitFor("compaction metrics of " + topic, () -> {
                metrics[0] = BrokerMetrics.scrape(broker());
                return BrokerMetrics.value(metrics[0], "pulsar_compaction_succeed_count", label) == 2.0;
            });
            assertThat(BrokerMetrics.value(metrics[0], "pulsar_compaction_removed_event_count", label))
                    .isEqualTo(5.0);
            assertThat(BrokerMetrics.value(metrics[0], "pulsar_compaction_failed_count", label))
                    .isZero();
            // The last message id a compacted reader is told about is the topic's.
            try (Reader<byte[]> reader = reader(client, topic, true)) {
                assertThat(reader.hasMessageAvailable()).isTrue();
            }
        }
    }

    @Test
    void aCompactedSubscriptionConsumesTheViewThenTheTopic() throws Exception {
        String topic = "persistent://public/default/compact-subscription";
        try (PulsarClient client = broker().newClient();
                Producer<byte[]> producer =
                        client.newProducer().topic(topic).enableBatching(false).create()) {
            for (int i = 0; i < 9; i++) {
                send(producer, "k" + (i % 3), "v" + i);
            }
            compactAndWait(topic);
            send(producer, "k0", "after");
            try (Consumer<byte[]> consumer = client.newConsumer()
                    .topic(topic)
                    .subscriptionName("compacted")
                    .subscriptionType(SubscriptionType.Exclusive)
                    .readCompacted(true)
                    .subscriptionInitialPosition(SubscriptionInitialPosition.Earliest)
                    .subscribe()) {
                List<String> got = new ArrayList<>();
                for (int i = 0; i < 4; i++) {
                    Message<byte[]> m = consumer.receive(30, TimeUnit.SECONDS);
                    assertThat(m).as("message %s; got %s", i, got).isNotNull();
                    got.add(text(m));
                    consumer.acknowledge(m);
                }
                assertThat(got).containsExactly("k0=v6", "k1=v7", "k2=v8", "k0=after");
                assertThat(consumer.receive(300, TimeUnit.MILLISECONDS)).isNull();
            }
        }
    }

    @Test
    void batchedMessagesAreCompacted() throws Exception {
        String topic = "persistent://public/default/compact-batches";
        try (PulsarClient client = broker().newClient();
                Producer<byte[]> producer = client.newProducer()
                        .topic(topic)
                        .enableBatching(true)
                        .batchingMaxMessages(7)
                        .batchingMaxPublishDelay(50, TimeUnit.MILLISECONDS)
                        .compressionType(CompressionType.LZ4)
                        .create()) {
            List<java.util.concurrent.CompletableFuture<MessageId>> sends = new ArrayList<>();
            for (int i = 0; i < 60; i++) {
                sends.add(producer.newMessage()
                        .key("k" + (i % 6))
                        .value(("v" + i).getBytes(UTF_8))
                        .sendAsync());
            }
            sends.add(producer.newMessage().key("k0").value(null).sendAsync());
            producer.flush();
            for (var f : sends) {
                f.get(30, TimeUnit.SECONDS);
            }

            compactAndWait(topic);

            try (Reader<byte[]> reader = reader(client, topic, true)) {
                assertThat(readAvailable(reader))
                        .containsExactlyInAnyOrder("k1=v55", "k2=v56", "k3=v57", "k4=v58", "k5=v59");
            }
        }
    }

    @Test
    void compactionSurvivesABrokerRestart() throws Exception {
        String topic = "persistent://public/default/compact-restart";
        try (PulsarClient client = broker().newClient();
                Producer<byte[]> producer =
                        client.newProducer().topic(topic).enableBatching(false).create()) {
            for (int i = 0; i < 20; i++) {
                send(producer, "k" + (i % 4), "v" + i);
            }
        }
        compactAndWait(topic);

        broker().restart();

        try (PulsarClient client = broker().newClient()) {
            try (Reader<byte[]> reader = reader(client, topic, true)) {
                assertThat(readAvailable(reader)).containsExactly("k0=v16", "k1=v17", "k2=v18", "k3=v19");
            }
            try (Producer<byte[]> producer =
                    client.newProducer().topic(topic).enableBatching(false).create()) {
                send(producer, "k0", "after");
            }
            compactAndWait(topic);
            try (Reader<byte[]> reader = reader(client, topic, true)) {
                assertThat(readAvailable(reader)).containsExactly("k1=v17", "k2=v18", "k3=v19", "k0=after");
            }
        }
    }

    @Test
    void compactsAutomaticallyAboveTheNamespaceThreshold() throws Exception {
        PulsarAdmin admin = broker().admin();
        String ns = "public/compact-auto";
        admin.namespaces().createNamespace(ns, Set.of("lakestream"));
        admin.namespaces().setCompactionThreshold(ns, 512L);
        String topic = "persistent://" + ns + "/t";
        try (PulsarClient client = broker().newClient();
                Producer<byte[]> producer =
                        client.newProducer().topic(topic).enableBatching(false).create()) {
            for (int i = 0; i < 40; i++) {
                send(producer, "k" + (i % 3), "value-" + i + "-" + "x".repeat(40));
            }
            // No one asks: the broker's compaction monitor sees the backlog over the threshold and compacts.
            waitFor(
                    "automatic compaction of " + topic,
                    () -> admin.topics().compactionStatus(topic).status == LongRunningProcessStatus.Status.SUCCESS);
            try (Reader<byte[]> reader = reader(client, topic, true)) {
                List<String> got = readAvailable(reader);
                assertThat(got).hasSizeLessThan(40).contains("k0=value-39-" + "x".repeat(40));
                assertThat(got).doesNotContain("k0=value-0-" + "x".repeat(40));
            }
        }
    }

    @Test
    void pulsarAdminCliCompactsATopic() throws Exception {
        String topic = "persistent://public/default/compact-cli";
        try (PulsarClient client = broker().newClient();
                Producer<byte[]> producer =
                        client.newProducer().topic(topic).enableBatching(false).create()) {
            send(producer, "a", "1");
            send(producer, "a", "2");
            String url = broker().webServiceUrl();
            assertThat(cli("pulsar-admin", "--admin-url", url, "topics", "compact", topic))
                    .contains("Topic compaction requested");
            assertThat(cli("pulsar-admin", "--admin-url", url, "topics", "compaction-status", "-w", topic))
                    .contains("Compaction was a success");
            try (Reader<byte[]> reader = reader(client, topic, true)) {
                assertThat(readAvailable(reader)).containsExactly("a=2");
            }
        }
    }

    @Test
    void aTopicWhoseKeysWereAllDeletedHasAnEmptyView() throws Exception {
        String topic = "persistent://public/default/compact-empty";
        try (PulsarClient client = broker().newClient();
                Producer<byte[]> producer =
                        client.newProducer().topic(topic).enableBatching(false).create()) {
            send(producer, "a", "1");
            send(producer, "b", "1");
            send(producer, "a", null);
            send(producer, "b", null);
            compactAndWait(topic);
            try (Reader<byte[]> reader = reader(client, topic, true)) {
                assertThat(reader.hasMessageAvailable()).isFalse();
                send(producer, "c", "1");
                assertThat(readN(reader, 1)).containsExactly("c=1");
            }
        }
    }

    @Test
    void deletingATopicDeletesItsCompactedStreams() throws Exception {
        String topic = "persistent://public/default/compact-delete";
        try (PulsarClient client = broker().newClient();
                Producer<byte[]> producer =
                        client.newProducer().topic(topic).enableBatching(false).create()) {
            send(producer, "a", "1");
        }
        compactAndWait(topic);
        String namespace = "pulsar-compacted/" + TopicName.get(topic).getPersistenceNamingEncoding();
        var catalog = ((LakestreamManagedLedgerStorage) broker().pulsar().getManagedLedgerStorage())
                .lakestream()
                .catalog();
        assertThat(catalog.list(namespace).get(30, TimeUnit.SECONDS)).hasSize(1);

        broker().admin().topics().delete(topic, true);

        waitFor(
                "the compacted streams of deleted " + topic,
                () -> catalog.list(namespace).get(30, TimeUnit.SECONDS).isEmpty());
    }

    // -------------------------------------------------------------------------------------------------- helpers

    private CompactionStats compactionStats(String topic) throws Exception {
        return broker().admin().topics().getStats(topic).getCompaction();
    }

    private static void send(Producer<byte[]> producer, String key, String value) throws Exception {
        producer.newMessage()
                .key(key)
                .value(value == null ? null : value.getBytes(UTF_8))
                .send();
    }

    void compactAndWait(String topic) throws Exception {
        PulsarAdmin admin = broker().admin();
        admin.topics().triggerCompaction(topic);
        LongRunningProcessStatus[] last = new LongRunningProcessStatus[1];
        waitFor("compaction of " + topic, () -> {
            last[0] = admin.topics().compactionStatus(topic);
            return last[0].status != LongRunningProcessStatus.Status.RUNNING;
        });
        assertThat(last[0].status)
                .as("compaction of %s: %s", topic, last[0].lastError)
                .isEqualTo(LongRunningProcessStatus.Status.SUCCESS);
    }

    private static Reader<byte[]> reader(PulsarClient client, String topic, boolean compacted) throws Exception {
        return client.newReader()
                .topic(topic)
                .startMessageId(MessageId.earliest)
                .readCompacted(compacted)
                .create();
    }

    private static String text(Message<byte[]> m) {
        return (m.hasKey() ? m.getKey() : "") + "=" + (m.getValue() == null ? "null" : new String(m.getValue(), UTF_8));
    }

    private static List<String> readAvailable(Reader<byte[]> reader) throws Exception {
        List<String> got = new ArrayList<>();
        while (reader.hasMessageAvailable()) {
            Message<byte[]> m = reader.readNext(30, TimeUnit.SECONDS);
            assertThat(m)
                    .as("a message announced by hasMessageAvailable; got so far %s", got)
                    .isNotNull();
            got.add(text(m));
        }
        return got;
    }

    private static List<String> readN(Reader<byte[]> reader, int n) throws Exception {
        List<String> got = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Message<byte[]> m = reader.readNext(30, TimeUnit.SECONDS);
            assertThat(m).as("message %s of %s; got %s", i, n, got).isNotNull();
            got.add(text(m));
        }
        return got;
    }

    interface Check {
        boolean ok() throws Exception;
    }

    static void waitFor(String what, Check check) throws Exception {
        await(what)
                .atMost(Duration.ofMinutes(1))
                .ignoreExceptionsInstanceOf(Exception.class)
                .until(check::ok);
    }

    /** Runs {@code bin/<tool> args...} as a user would ({@link Cli#runOk}); its stdout and stderr together. */
    static String cli(String tool, String... args) throws IOException, InterruptedException {
        Cli.Result r = Cli.runOk(tool, args);
        return r.stdout() + r.stderr();
    }
}
