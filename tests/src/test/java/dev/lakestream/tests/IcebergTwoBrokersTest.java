package dev.lakestream.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lakestream.iceberg.CatalogConfig;
import dev.lakestream.iceberg.Catalogs;
import dev.lakestream.iceberg.CommitSummary;
import dev.lakestream.iceberg.TableNames;
import dev.lakestream.iceberg.TopicRef;
import dev.lakestream.iceberg.schema.MetadataColumns;
import dev.lakestream.iceberg.tool.MaterializeCommand;
import dev.lakestream.iceberg.tool.StatusFile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.pulsar.client.admin.PulsarAdmin;
import org.apache.pulsar.client.api.MessageId;
import org.apache.pulsar.client.api.Producer;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.transaction.Transaction;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker-hosted Iceberg materializer on two brokers, each in its own JVM (killable with {@code SIGKILL}), sharing
 * one Oxia server, one S3Proxy bucket (a {@link BrokerCluster}) and one Iceberg catalog: transactions (aborted ones
 * never become rows), a standalone materializer process racing the owning broker, and the owning broker killed
 * mid-stream while the other takes the topic over. The table must end with every stored message exactly once. The kill comes last, so the class
 * starts its brokers once and never restarts one.
 */
@Timeout(value = 8, unit = TimeUnit.MINUTES)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class IcebergTwoBrokersTest {

    private static final Logger LOG = LoggerFactory.getLogger(IcebergTwoBrokersTest.class);
    /** The catalog database and warehouse every materializer here shares (the brokers' and the standalone's). */
    private static final Path ICEBERG_DIR = createTempDirectory("iceberg-two-brokers-shared-");

    @RegisterExtension
    static final BrokerClusterExtension CLUSTER = new BrokerClusterExtension("iceberg-two-brokers", 2)
            // The topics here may have no subscriptions: Pulsar would delete them (and their streams) when idle.
            .config("brokerDeleteInactiveTopicsEnabled", "false")
            .config("lakestream.iceberg.enabled", "true")
            .config("lakestream.iceberg.dataDir", ICEBERG_DIR.toString())
            .config("lakestream.iceberg.commitInterval", "500ms")
            .config("lakestream.iceberg.pollInterval", "100ms")
            .config("lakestream.iceberg.topicCheckInterval", "500ms");

    private static Path workDir;
    private static BrokerProcess brokerA;
    private static BrokerProcess brokerB;
    private static Catalog catalog;

    @BeforeAll
    static void openCatalog() {
        workDir = CLUSTER.cluster().workDir();
        brokerA = CLUSTER.cluster().brokers().get(0);
        brokerB = CLUSTER.cluster().brokers().get(1);
        catalog = Catalogs.open(CatalogConfig.embedded(ICEBERG_DIR));
    }

    @AfterAll
    static void closeCatalog() throws Exception {
        if (catalog instanceof AutoCloseable a) {
            a.close();
        }
    }

    private static Path createTempDirectory(String prefix) {
        try {
            return Files.createTempDirectory(prefix);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    // ------------------------------------------------------------------------------------------------ the tests

    @Test
    @Order(1)
    void messagesOfAnAbortedTransactionNeverBecomeRows() throws Exception {
        String ns = "public/iceberg-txn";
        String topic = "persistent://" + ns + "/payments";
        try (PulsarAdmin admin = admin(brokerA, brokerB);
                PulsarClient client = PulsarClient.builder()
                        .serviceUrl(serviceUrl(brokerA, brokerB))
                        .enableTransaction(true)
                        .operationTimeout(30, TimeUnit.SECONDS)
                        .build()) {
            enabledNamespace(admin, ns);
            admin.topics().createNonPartitionedTopic(topic);
            try (Producer<byte[]> producer = client.newProducer()
                    .topic(topic)
                    .sendTimeout(0, TimeUnit.SECONDS)
                    .enableBatching(false)
                    .create()) {
                send(producer, null, "before");
                Transaction committed = client.newTransaction()
                        .withTransactionTimeout(2, TimeUnit.MINUTES)
                        .build()
                        .get();
                Transaction aborted = client.newTransaction()
                        .withTransactionTimeout(2, TimeUnit.MINUTES)
                        .build()
                        .get();
                // Interleaved, so the aborted messages sit between committed ones in the stream.
                for (int i = 0; i < 10; i++) {
                    send(producer, committed, "committed-" + i);
                    send(producer, aborted, "aborted-" + i);
                }
                send(producer, null, "between");
                aborted.abort().get(30, TimeUnit.SECONDS);
                committed.commit().get(30, TimeUnit.SECONDS);
                send(producer, null, "after");
            }
            await("the message after both transactions in the table")
                    .atMost(Duration.ofMinutes(2))
                    .ignoreExceptionsInstanceOf(Exception.class)
                    .until(() -> values(topic).contains("after"));
            List<String> values = values(topic);
            List<String> expected = new ArrayList<>(List.of("before", "between", "after"));
            for (int i = 0; i < 10; i++) {
                expected.add("committed-" + i);
            }
            assertThat(values).as("rows").containsExactlyInAnyOrderElementsOf(expected);
            LOG.info("transactions: {} rows, none of the 10 aborted messages", values.size());
        }
    }

    @Test
    @Order(2)
    void aStandaloneProcessRacingTheOwningBrokerCommitsEachMessageOnceInChainedRanges() throws Exception {
        String ns = "public/iceberg-race";
        String topic = "persistent://" + ns + "/orders";
        int count = 600;
        Path processLog = workDir.resolve("standalone.log");
        try (PulsarAdmin admin = admin(brokerA, brokerB);
                PulsarClient client = client(brokerA, brokerB)) {
            enabledNamespace(admin, ns);
            admin.topics().createNonPartitionedTopic(topic);
            Process process = startStandalone(ns, processLog);
            try {
                await("the standalone process materializing " + topic)
                        .atMost(Duration.ofMinutes(3))
                        .ignoreExceptionsInstanceOf(Exception.class)
                        .until(() -> Files.readString(processLog).contains("materializing " + topic));
                try (Producer<byte[]> producer = client.newProducer()
                        .topic(topic)
                        .enableBatching(true)
                        .batchingMaxMessages(10)
                        .batchingMaxPublishDelay(5, TimeUnit.MILLISECONDS)
                        .create()) {
                    List<CompletableFuture<MessageId>> sent = new ArrayList<>();
                    for (int i = 0; i < count; i++) {
                        sent.add(producer.sendAsync(Integer.toString(i).getBytes(StandardCharsets.UTF_8)));
                        if (i % 20 == 0) {
                            producer.flush();
                            Thread.sleep(40);
                        }
                    }
                    producer.flush();
                    CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new))
                            .get(60, TimeUnit.SECONDS);
                }
                await("every message in the table")
                        .atMost(Duration.ofMinutes(2))
                        .ignoreExceptionsInstanceOf(Exception.class)
                        .until(() -> values(topic).size() >= count);
            } finally {
                process.destroy(); // SIGTERM: commits what is pending, then exits
            }
            assertThat(process.waitFor(120, TimeUnit.SECONDS))
                    .as("the process stopped on SIGTERM")
                    .isTrue();
            StatusFile.Snapshot last =
                    StatusFile.read(workDir.resolve("standalone-status")).orElseThrow();
            long commits =
                    last.topics().stream().mapToLong(StatusFile.Topic::commits).sum();
            long conflicts = last.topics().stream()
                    .mapToLong(StatusFile.Topic::conflicts)
                    .sum();
            Table table = catalog.loadTable(TableNames.of(TopicRef.parse(topic)));
            List<long[]> ranges = ranges(table);
            LOG.info(
                    "race with a broker: standalone process {} commits, {} conflicts; table {} commits",
                    commits,
                    conflicts,
                    ranges.size());
            assertThat(commits + conflicts)
                    .as("the process committed or lost a race")
                    .isPositive();
            assertExactlyOnce(values(topic), count);
            for (int i = 1; i < ranges.size(); i++) {
                assertThat(ranges.get(i)[0])
                        .as("commit %d starts where commit %d ended", i, i - 1)
                        .isEqualTo(ranges.get(i - 1)[1]);
            }
        }
    }

    @Test
    @Order(3)
    void killingTheOwningBrokerMidStreamLeavesEveryStoredMessageInTheTableOnce() throws Exception {
        String ns = "public/iceberg-failover";
        String topic = "persistent://" + ns + "/orders";
        int count = 4000;
        try (PulsarAdmin admin = admin(brokerA, brokerB);
                PulsarClient client = client(brokerA, brokerB)) {
            enabledNamespace(admin, ns);
            admin.namespaces().setDeduplicationStatus(ns, true);
            admin.topics().createNonPartitionedTopic(topic);
            // 40 s of steady publishing; the owner dies in the middle of it, with rows already in the table.
            try (KeyedTraffic traffic = new KeyedTraffic(client, topic, "iceberg-failover").start(count, 100)) {
                await("1000 sends issued")
                        .atMost(Duration.ofMinutes(2))
                        .ignoreExceptionsInstanceOf(Exception.class)
                        .until(() -> traffic.sent() >= 1000);
                // Ideally the owner has committed rows already; on a slow machine the kill comes at 3/4 regardless,
                // so that it always falls in the middle of the stream.
                await("rows in the table, or 3/4 of the sends issued")
                        .atMost(Duration.ofMinutes(1))
                        .ignoreExceptionsInstanceOf(Exception.class)
                        .until(() -> traffic.sent() >= count * 3 / 4
                                || !values(topic).isEmpty());
                assertThat(traffic.sent())
                        .as("sends issued before the kill (mid-stream)")
                        .isLessThan(count);
                String owner = admin.lookups().lookupTopic(topic);
                BrokerProcess victim = owner.endsWith(brokerA.brokerAddress()) ? brokerA : brokerB;
                int rowsBefore = values(topic).size();
                victim.kill();
                LOG.info(
                        "Killed {} (owner of {}) after {} sends, {} acknowledged, {} rows in the table",
                        victim,
                        topic,
                        traffic.sent(),
                        traffic.ackedCount(),
                        rowsBefore);
                traffic.assertSettled(180);
                assertThat(traffic.failed()).as("sends that failed").isEmpty();

                BrokerProcess survivor = victim == brokerA ? brokerB : brokerA;
                try (PulsarClient survivorClient = client(survivor)) {
                    Map<Integer, Integer> stored =
                            KeyedTraffic.stored(survivorClient, topic).counts();
                    int storedTotal =
                            stored.values().stream().mapToInt(Integer::intValue).sum();
                    await("every stored message in the table")
                            .atMost(Duration.ofMinutes(2))
                            .ignoreExceptionsInstanceOf(Exception.class)
                            .until(() -> values(topic).size() >= storedTotal);
                    List<Record> rows = rows(topic);
                    Map<Integer, Integer> inTable = new TreeMap<>();
                    Map<String, Integer> positions = new HashMap<>();
                    for (Record r : rows) {
                        inTable.merge(Integer.parseInt(value(r)), 1, Integer::sum);
                        positions.merge(position(r), 1, Integer::sum);
                    }
                    Set<Integer> missingAcked = new HashSet<>(traffic.acked());
                    missingAcked.removeAll(inTable.keySet());
                    long duplicates =
                            positions.values().stream().filter(c -> c > 1).count();
                    LOG.info(
                            "failover: {} acknowledged, {} stored, {} rows ({} distinct messages), {} positions in"
                                    + " the table more than once, {} acknowledged messages missing",
                            traffic.ackedCount(),
                            storedTotal,
                            rows.size(),
                            inTable.size(),
                            duplicates,
                            missingAcked.size());
                    assertThat(missingAcked)
                            .as("acknowledged messages missing from the table (gaps)")
                            .isEmpty();
                    assertThat(positions.entrySet())
                            .as("stored messages (positions) in the table more than once")
                            .filteredOn(e -> e.getValue() > 1)
                            .isEmpty();
                    // The table holds what the topic holds: each stored message as often as it is stored (once,
                    // with deduplication on, unless the storage itself kept a message twice).
                    assertThat(inTable)
                            .as("table rows per message vs the topic's stored messages")
                            .isEqualTo(stored);
                    assertThat(rows).hasSize(storedTotal);
                }
            }
        }
    }

    // -------------------------------------------------------------------------------------------------- helpers

    private static void enabledNamespace(PulsarAdmin admin, String ns) throws Exception {
        admin.namespaces().createNamespace(ns);
        // As `pulsar-admin namespaces set-property NS -k lakestream.iceberg -v enabled`.
        admin.namespaces().setProperty(ns, "lakestream.iceberg", "enabled");
    }

    private static void send(Producer<byte[]> producer, Transaction txn, String value) throws Exception {
        (txn == null ? producer.newMessage() : producer.newMessage(txn))
                .value(value.getBytes(StandardCharsets.UTF_8))
                .sendAsync()
                .get(30, TimeUnit.SECONDS);
    }

    /** The standalone materializer in its own JVM, on the brokers' stores and the same catalog. */
    private static Process startStandalone(String namespace, Path log) throws IOException {
        // The brokers' storage settings: those of their configuration file, with the test's stores over them.
        Map<String, String> props = new TreeMap<>();
        java.util.Properties brokerConf = new java.util.Properties();
        try (var in =
                Files.newBufferedReader(PulsarBrokerExtension.projectDir().resolve("conf/broker-diskless.conf"))) {
            brokerConf.load(in);
        }
        brokerConf.stringPropertyNames().stream()
                .filter(k -> k.startsWith("lakestream.") && !k.startsWith("lakestream.iceberg."))
                .forEach(k -> props.put(k, brokerConf.getProperty(k).trim()));
        props.putAll(CLUSTER.cluster().storeSettings());
        CatalogConfig shared = CatalogConfig.embedded(ICEBERG_DIR);
        props.put("lakestream.iceberg.catalog.uri", shared.uri());
        props.put("lakestream.iceberg.warehouse", shared.warehouse());
        props.put("lakestream.iceberg.commitInterval", "300ms");
        props.put("lakestream.iceberg.pollInterval", "100ms");
        props.put("lakestream.materialize.topics", namespace);
        props.put("lakestream.materialize.discoveryInterval", "500ms");
        props.put(
                "lakestream.materialize.dataDir", workDir.resolve("standalone").toString());
        props.put(
                "lakestream.materialize.statusFile",
                workDir.resolve("standalone-status").toString());
        StringBuilder sb = new StringBuilder();
        props.forEach((k, v) -> sb.append(k).append('=').append(v).append('\n'));
        Path conf = Files.writeString(workDir.resolve("standalone.conf"), sb.toString());
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--add-opens",
                "java.base/java.nio=ALL-UNNAMED",
                "--add-opens",
                "java.base/jdk.internal.misc=ALL-UNNAMED",
                "-Dio.netty.tryReflectionSetAccessible=true",
                "--enable-native-access=ALL-UNNAMED",
                "-Xmx384m",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                classPath(),
                MaterializeCommand.class.getName(),
                "--conf",
                conf.toString()));
        if (Runtime.version().feature() >= 24) {
            command.add(1, "--sun-misc-unsafe-memory-access=allow");
        }
        return new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
    }

    private static String classPath() {
        String cp = System.getProperty("surefire.test.class.path");
        return cp != null && !cp.isBlank() ? cp : System.getProperty("java.class.path");
    }

    /** The message values in the topic's table now (empty if there is no table yet). */
    private static List<String> values(String topic) throws IOException {
        return rows(topic).stream().map(IcebergTwoBrokersTest::value).toList();
    }

    private static String value(Record r) {
        return StandardCharsets.UTF_8
                .decode(((ByteBuffer) r.getField("value")).duplicate())
                .toString();
    }

    /** The message's position (ledger:entry:batch index), unique per message of a non-partitioned topic. */
    private static String position(Record r) {
        return r.getField(MetadataColumns.LEDGER_ID) + ":" + r.getField(MetadataColumns.ENTRY_ID) + ":"
                + r.getField(MetadataColumns.BATCH_INDEX);
    }

    private static List<Record> rows(String topic) throws IOException {
        Table table;
        try {
            table = catalog.loadTable(TableNames.of(TopicRef.parse(topic)));
        } catch (NoSuchTableException e) {
            return List.of();
        }
        List<Record> out = new ArrayList<>();
        try (CloseableIterable<Record> rows = IcebergGenerics.read(table).build()) {
            rows.forEach(r -> out.add(r.copy()));
        }
        return out;
    }

    /** The values 0..n-1, each exactly once. */
    private static void assertExactlyOnce(List<String> values, int n) {
        Map<Integer, Integer> seen = new HashMap<>();
        values.forEach(v -> seen.merge(Integer.parseInt(v), 1, Integer::sum));
        List<Integer> duplicates = seen.entrySet().stream()
                .filter(e -> e.getValue() > 1)
                .map(Map.Entry::getKey)
                .sorted()
                .toList();
        List<Integer> missing = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            if (!seen.containsKey(i)) {
                missing.add(i);
            }
        }
        LOG.info("{} rows, {} duplicates, {} gaps", values.size(), duplicates.size(), missing.size());
        assertThat(duplicates).as("duplicates").isEmpty();
        assertThat(missing).as("gaps").isEmpty();
        assertThat(values).hasSize(n);
    }

    /** The committed offset ranges of the table's (single) stream, in commit order. */
    private static List<long[]> ranges(Table table) {
        table.refresh();
        List<Snapshot> snapshots = new ArrayList<>();
        table.snapshots().forEach(snapshots::add);
        snapshots.sort(Comparator.comparingLong(Snapshot::sequenceNumber));
        List<long[]> out = new ArrayList<>();
        for (Snapshot s : snapshots) {
            String range = s.summary().get(CommitSummary.RANGE);
            if (range != null) {
                String[] p = range.split("[:-]", -1);
                out.add(new long[] {Long.parseLong(p[1]), Long.parseLong(p[2])});
            }
        }
        return out;
    }

    private static String serviceUrl(BrokerProcess... brokers) {
        List<String> addresses = new ArrayList<>();
        for (BrokerProcess b : brokers) {
            addresses.add(b.brokerAddress());
        }
        return "pulsar://" + String.join(",", addresses);
    }

    private static PulsarClient client(BrokerProcess... brokers) throws Exception {
        return PulsarClient.builder()
                .serviceUrl(serviceUrl(brokers))
                .operationTimeout(30, TimeUnit.SECONDS)
                .build();
    }

    private static PulsarAdmin admin(BrokerProcess... brokers) throws Exception {
        List<String> addresses = new ArrayList<>();
        for (BrokerProcess b : brokers) {
            addresses.add(b.webAddress());
        }
        return PulsarAdmin.builder()
                .serviceHttpUrl("http://" + String.join(",", addresses))
                .connectionTimeout(10, TimeUnit.SECONDS)
                .readTimeout(60, TimeUnit.SECONDS)
                .requestTimeout(90, TimeUnit.SECONDS)
                .build();
    }
}
