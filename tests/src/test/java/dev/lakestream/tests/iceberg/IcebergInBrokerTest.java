package dev.lakestream.tests.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lakestream.iceberg.CatalogConfig;
import dev.lakestream.iceberg.Catalogs;
import dev.lakestream.iceberg.schema.MetadataColumns;
import dev.lakestream.testkit.S3ProxyServer;
import dev.lakestream.tests.install.StockBrokerExtension;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.data.Record;
import org.apache.pulsar.client.admin.PulsarAdmin;
import org.apache.pulsar.client.api.CompressionType;
import org.apache.pulsar.client.api.Producer;
import org.apache.pulsar.client.api.ProducerBuilder;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.Schema;
import org.apache.pulsar.client.api.schema.SchemaDefinition;
import org.apache.pulsar.common.policies.data.PersistencePolicies;
import org.apache.pulsar.common.policies.data.TenantInfo;
import org.apache.pulsar.common.schema.KeyValue;
import org.apache.pulsar.common.schema.KeyValueEncodingType;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The Iceberg materializer hosted by the broker plugin, as users get it: the release bundle installed into a stock
 * Pulsar 5.0.1 home, the broker started by Pulsar's own launcher (so the NAR's class loading is the real one: Iceberg,
 * Parquet and the AWS SDK from the NAR, the storage with its relocated SDK from lib/), topics on S3Proxy + Oxia, the
 * tables' files on S3Proxy too (the warehouse reached with the storage's own credentials, which the broker's
 * properties show masked). Materialization is enabled on a namespace with {@code pulsar-admin namespaces
 * set-property}; the real client publishes; the tables are read back with Iceberg's own {@code IcebergGenerics}.
 */
@Timeout(value = 8, unit = TimeUnit.MINUTES)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class IcebergInBrokerTest {

    private static final String CLUSTER = "lake";
    private static final String NS = "acme/lake";
    private static final String OTHER_NS = "acme/plain";
    private static final String TOGGLE_NS = "acme/toggle";
    private static final int N = 120;

    @RegisterExtension
    static final StockBrokerExtension STOCK = new StockBrokerExtension("iceberg-in-broker", CLUSTER)
            // The topics here have no subscriptions: Pulsar would delete them (and their streams) after a minute idle.
            .brokerConf("brokerDeleteInactiveTopicsEnabled", "false")
            // Retention 0 (Pulsar's default), no subscriptions, small ledgers and a retention check every 2 s: without
            // the materializer's retention holds, entries could be trimmed before they reach a table.
            .brokerConf("managedLedgerMaxEntriesPerLedger", "20")
            .brokerConf("managedLedgerMinLedgerRolloverTimeMinutes", "0")
            .brokerConf("retentionCheckIntervalInSeconds", "2")
            .installSettings(stock -> {
                Map<String, String> m = new LinkedHashMap<>();
                m.put("lakestream.s3.pathStyleAccess", "true");
                m.putAll(icebergSettings());
                return m;
            });

    private static PulsarAdmin admin;
    private static PulsarClient client;
    private static Catalog catalog;
    private static IcebergTables tables;

    @BeforeAll
    static void connect() throws Exception {
        admin = PulsarAdmin.builder().serviceHttpUrl(STOCK.webServiceUrl()).build();
        client = PulsarClient.builder()
                .serviceUrl(STOCK.serviceUrl())
                .operationTimeout(30, TimeUnit.SECONDS)
                .build();
        admin.tenants()
                .createTenant(
                        "acme",
                        TenantInfo.builder().allowedClusters(Set.of(CLUSTER)).build());
        for (String ns : List.of(NS, OTHER_NS, TOGGLE_NS)) {
            admin.namespaces().createNamespace(ns);
            admin.namespaces().setPersistence(ns, new PersistencePolicies(1, 1, 1, 0, "lakestream"));
        }
        // As `pulsar-admin namespaces set-property acme/lake -k lakestream.iceberg -v enabled`.
        admin.namespaces().setProperty(NS, "lakestream.iceberg", "enabled");

        // The test reads the tables as another engine would: the same catalog database, the warehouse on S3Proxy.
        S3ProxyServer s3 = STOCK.s3();
        Map<String, String> reader = new LinkedHashMap<>(icebergSettings());
        reader.put("lakestream.s3.endpoint", s3.endpoint().toString());
        reader.put("lakestream.s3.region", s3.region());
        reader.put("lakestream.s3.pathStyleAccess", "true");
        reader.put("lakestream.s3.accessKeyId", s3.accessKey());
        reader.put("lakestream.s3.secretAccessKey", s3.secretKey());
        catalog = Catalogs.open(
                CatalogConfig.fromProperties(reader, STOCK.workDir().resolve("iceberg-data")));
        tables = new IcebergTables(catalog);
    }

    /** The broker's Iceberg settings: on, fast commits for a test, the warehouse in the S3Proxy bucket. */
    private static Map<String, String> icebergSettings() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("lakestream.iceberg.enabled", "true");
        m.put(
                "lakestream.iceberg.dataDir",
                STOCK.workDir().resolve("iceberg-data").toString());
        m.put("lakestream.iceberg.warehouse", "s3://" + STOCK.bucket() + "/warehouse");
        m.put("lakestream.iceberg.commitInterval", "1s");
        m.put("lakestream.iceberg.pollInterval", "100ms");
        m.put("lakestream.iceberg.topicCheckInterval", "500ms");
        m.put("lakestream.iceberg.partitionByDay", "true");
        return m;
    }

    @AfterAll
    static void disconnect() {
        for (AutoCloseable c : new AutoCloseable[] {client, admin, catalog instanceof AutoCloseable a ? a : null}) {
            if (c != null) {
                try {
                    c.close();
                } catch (Exception e) {
                    // keep closing the others
                }
            }
        }
    }

    // ------------------------------------------------------------------------------------------------ the POJOs

    /** An Avro record with a nested record, an array and logical types (timestamp-millis, date, decimal). */
    public static class Reading {
        public String sensor;
        public double value;
        public Location location;
        public List<String> tags;
        public Instant at;
        public LocalDate day;

        public Reading() {}

        Reading(int i) {
            sensor = "sensor-" + i;
            value = i * 1.5;
            location = new Location("site-" + (i % 3), i % 7);
            tags = List.of("t" + i, "all");
            at = Instant.ofEpochMilli(1_700_000_000_000L + i * 1000L);
            day = LocalDate.of(2026, 1, 1).plusDays(i);
        }
    }

    public static class Location {
        public String site;
        public int floor;

        public Location() {}

        Location(String site, int floor) {
            this.site = site;
            this.floor = floor;
        }
    }

    // ------------------------------------------------------------------------------------------------ the tests

    @Test
    @Order(1)
    void everySchemaKindBecomesATableRowForRowWithEachCodecBatchedAndNot() throws Exception {
        String avro = topic("readings-avro");
        String json = topic("locations-json");
        String longs = topic("counts-int64");
        String bytes = topic("blobs-bytes");
        String kv = topic("pairs-kv");
        admin.topics().createPartitionedTopic(longs, 3);

        Schema<Reading> avroSchema = Schema.AVRO(SchemaDefinition.<Reading>builder()
                .withPojo(Reading.class)
                .withJSR310ConversionEnabled(true)
                .build());
        publish(client.newProducer(avroSchema).topic(avro), true, CompressionType.LZ4, Reading::new);
        publish(
                client.newProducer(Schema.JSON(Location.class)).topic(json),
                false,
                CompressionType.ZSTD,
                i -> new Location("json-" + i, i));
        publish(client.newProducer(Schema.INT64).topic(longs), true, CompressionType.SNAPPY, i -> 1000L + i);
        publish(
                client.newProducer(Schema.BYTES).topic(bytes),
                false,
                CompressionType.ZLIB,
                i -> ("blob-" + i).getBytes(StandardCharsets.UTF_8));
        publish(
                client.newProducer(Schema.KeyValue(
                                Schema.INT32, Schema.JSON(Location.class), KeyValueEncodingType.SEPARATED))
                        .topic(kv),
                true,
                CompressionType.NONE,
                i -> new KeyValue<>(i, new Location("kv-" + i, -i)));

        for (String t : List.of(avro, json, longs, bytes, kv)) {
            awaitRows(t, N);
        }

        Map<Integer, Record> avroRows = byIndex(avro);
        for (int i = 0; i < N; i++) {
            Reading want = new Reading(i);
            Record r = avroRows.get(i);
            assertThat(r.getField("sensor")).isEqualTo(want.sensor);
            assertThat(r.getField("value")).isEqualTo(want.value);
            Record loc = (Record) r.getField("location");
            assertThat(loc.getField("site")).isEqualTo(want.location.site);
            assertThat(loc.getField("floor")).isEqualTo(want.location.floor);
            assertThat(r.getField("tags")).isEqualTo(want.tags);
            assertThat(epochMillis(r.getField("at"))).isEqualTo(want.at.toEpochMilli());
            assertThat(r.getField("day")).isEqualTo(want.day);
        }
        Map<Integer, Record> jsonRows = byIndex(json);
        for (int i = 0; i < N; i++) {
            assertThat(jsonRows.get(i).getField("site")).isEqualTo("json-" + i);
            assertThat(jsonRows.get(i).getField("floor")).isEqualTo(i);
        }
        // Retention trims what is in the table (120 unbatched entries, ledgers of 20, no subscription).
        await("retention to trim the materialized entries of " + json)
                .atMost(Duration.ofMinutes(1))
                .ignoreExceptionsInstanceOf(Exception.class)
                .until(() -> admin.topics().getInternalStats(json).numberOfEntries < N);
        assertThat(admin.topics().getInternalStats(json).entriesAddedCounter).isEqualTo(N);
        Map<Integer, Record> longRows = byIndex(longs);
        Set<Object> partitions = new HashSet<>();
        for (int i = 0; i < N; i++) {
            assertThat(longRows.get(i).getField("value")).isEqualTo(1000L + i);
            partitions.add(longRows.get(i).getField(MetadataColumns.PARTITION));
        }
        assertThat(partitions)
                .as("the partitions of the partitioned topic, all in one table")
                .hasSize(3);
        Map<Integer, Record> byteRows = byIndex(bytes);
        for (int i = 0; i < N; i++) {
            ByteBuffer b = (ByteBuffer) byteRows.get(i).getField("value");
            assertThat(StandardCharsets.UTF_8.decode(b.duplicate()).toString()).isEqualTo("blob-" + i);
        }
        Map<Integer, Record> kvRows = byIndex(kv);
        for (int i = 0; i < N; i++) {
            assertThat(kvRows.get(i).getField("key")).isEqualTo(i);
            Record v = (Record) kvRows.get(i).getField("value");
            assertThat(v.getField("site")).isEqualTo("kv-" + i);
            assertThat(v.getField("floor")).isEqualTo(-i);
        }
    }

    @Test
    @Order(3)
    void topicsOfANamespaceWithoutThePropertyGetNoTable() throws Exception {
        String plain = "persistent://" + OTHER_NS + "/not-materialized";
        publish(client.newProducer(Schema.STRING).topic(plain), false, CompressionType.NONE, i -> "v" + i);
        // The enabled namespace's tables exist by now; give the broker a few topic checks more for this one.
        String probe = topic("probe");
        publish(client.newProducer(Schema.STRING).topic(probe), false, CompressionType.NONE, i -> "p" + i);
        awaitRows(probe, N);
        assertThat(tables.exists(plain))
                .as("a table for a topic of %s, which does not enable it", OTHER_NS)
                .isFalse();
    }

    @Test
    @Order(4)
    void unloadingTheNamespaceMidStreamKeepsTheTableExactlyOnce() throws Exception {
        String moving = topic("moving");
        int total = 600;
        try (Producer<String> producer = client.newProducer(Schema.STRING)
                .topic(moving)
                .enableBatching(false)
                .create()) {
            List<CompletableFuture<?>> sends = new ArrayList<>();
            for (int i = 0; i < total; i++) {
                sends.add(producer.newMessage()
                        .key(Integer.toString(i))
                        .value("m-" + i)
                        .sendAsync());
                if (i == 150 || i == 400) {
                    producer.flush();
                    await("rows of " + moving + " before unload")
                            .atMost(Duration.ofMinutes(1))
                            .ignoreExceptionsInstanceOf(Exception.class)
                            .until(() -> !tables.rows(moving).isEmpty());
                    // As `pulsar-admin namespaces unload acme/lake`: every topic of the namespace closes and reloads.
                    admin.namespaces().unload(NS);
                }
                if (i % 50 == 0) {
                    Thread.sleep(50);
                }
            }
            CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        }
        awaitRows(moving, total);
        Map<Integer, Record> rows = byIndex(moving);
        for (int i = 0; i < total; i++) {
            assertThat(rows.get(i).getField("value")).isEqualTo("m-" + i);
        }
        assertThat(STOCK.broker().log()).contains("Iceberg materializer: stopping " + moving);
    }

    @Test
    @Order(2)
    void theBrokersMetricsShowEachTopicsMaterialization() throws Exception {
        String avro = topic("readings-avro");
        String body = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(STOCK.webServiceUrl() + "/metrics/"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
        assertThat(body)
                .contains("# TYPE lakestream_iceberg_rows_total counter")
                .contains("# TYPE lakestream_iceberg_lag_seconds gauge");
        String rows = sampleLine(body, "lakestream_iceberg_rows_total", "topic=\"" + avro + "\"");
        assertThat(Long.parseLong(rows.substring(rows.lastIndexOf(' ') + 1))).isEqualTo(N);
        String lag = sampleLine(body, "lakestream_iceberg_lag_entries", "topic=\"" + avro + "\"");
        assertThat(lag).endsWith(" 0");
        String committed = sampleLine(body, "lakestream_iceberg_committed_offset", "topic=\"" + avro + "\"");
        assertThat(Long.parseLong(committed.substring(committed.lastIndexOf(' ') + 1)))
                .isPositive();
        assertThat(sampleLine(body, "lakestream_iceberg_paused", "topic=\"" + avro + "\""))
                .endsWith(" 0");
    }

    @Test
    @Order(5)
    void aTopicPropertyOverridesItsNamespaces() throws Exception {
        // Created with its own property (as `pulsar-admin topics create ... --property lakestream.iceberg=disabled`).
        String off = topic("opted-out");
        admin.topics().createNonPartitionedTopic(off, Map.of("lakestream.iceberg", "disabled"));
        publish(client.newProducer(Schema.STRING).topic(off), false, CompressionType.NONE, i -> "v" + i);
        String probe = topic("probe-2");
        publish(client.newProducer(Schema.STRING).topic(probe), false, CompressionType.NONE, i -> "p" + i);
        awaitRows(probe, N);
        assertThat(tables.exists(off))
                .as("a table for %s, whose topic property disables it", off)
                .isFalse();
    }

    @Test
    @Order(6)
    void disablingANamespaceStopsItsCommitsAndKeepsItsTables() throws Exception {
        admin.namespaces().setProperty(TOGGLE_NS, "lakestream.iceberg", "enabled");
        String t = "persistent://" + TOGGLE_NS + "/switched-off";
        publish(client.newProducer(Schema.STRING).topic(t), false, CompressionType.NONE, i -> "before-" + i);
        awaitRows(t, N);
        admin.namespaces().setProperty(TOGGLE_NS, "lakestream.iceberg", "disabled");
        await("the broker to stop materializing " + t)
                .atMost(Duration.ofMinutes(1))
                .ignoreExceptionsInstanceOf(Exception.class)
                .until(() -> STOCK.broker()
                        .log()
                        .contains("Iceberg materializer: stopping " + t + " (materialization disabled)"));
        long snapshotWhenStopped = tables.currentSnapshotId(t);
        publish(client.newProducer(Schema.STRING).topic(t), false, CompressionType.NONE, i -> "after-" + i);
        // Evidence that the host ran on since: a topic created after those messages were stored was found by a topic
        // check and committed to its table. Had the switched-off topic been picked up again, it would have been too.
        String probe = topic("probe-3");
        publish(client.newProducer(Schema.STRING).topic(probe), false, CompressionType.NONE, i -> "p" + i);
        awaitRows(probe, N);
        assertThat(tables.currentSnapshotId(t))
                .as("the current snapshot of %s's table, disabled before the last %d messages", t, N)
                .isEqualTo(snapshotWhenStopped);
        List<Record> rows = tables.rows(t);
        assertThat(rows).hasSize(N).allMatch(r -> ((String) r.getField("value")).startsWith("before-"));
    }

    // ------------------------------------------------------------------------------------------------ helpers

    private static String topic(String name) {
        return "persistent://" + NS + "/" + name;
    }

    /** Publishes N messages keyed by their index (the row for row comparison's key) and waits for every send. */
    private static <T> void publish(
            ProducerBuilder<T> builder, boolean batched, CompressionType codec, Function<Integer, T> value)
            throws Exception {
        try (Producer<T> p = builder.enableBatching(batched)
                .batchingMaxMessages(10)
                .batchingMaxPublishDelay(5, TimeUnit.MILLISECONDS)
                .compressionType(codec)
                .create()) {
            List<CompletableFuture<?>> sends = new ArrayList<>();
            for (int i = 0; i < N; i++) {
                T v = value.apply(i);
                // A KeyValue value (SEPARATED encoding) sets the message key itself: its key column is the index.
                sends.add((v instanceof KeyValue<?, ?>
                                ? p.newMessage()
                                : p.newMessage().key(Integer.toString(i)))
                        .value(v)
                        .sendAsync());
            }
            p.flush();
            CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        }
    }

    /** Waits until the table has {@code n} rows; fails at once if it ever has more (a duplicate). */
    private static void awaitRows(String topic, int n) throws Exception {
        try {
            await(n + " rows in the table of " + topic)
                    .atMost(Duration.ofSeconds(90))
                    .ignoreExceptionsInstanceOf(Exception.class)
                    .until(() -> {
                        int size = tables.rows(topic).size();
                        assertThat(size)
                                .as("rows of %s (published %d)", topic, n)
                                .isLessThanOrEqualTo(n);
                        return size == n;
                    });
        } catch (AssertionError | ConditionTimeoutException stalled) {
            // Say where the materializer stands (a stall once went unexplained here: docs/iceberg.md).
            throw new AssertionError(stalled.getMessage() + "; " + materializerState(topic), stalled);
        }
    }

    /** The topic's lakestream_iceberg_* samples and its managed ledger's entry count, for a failure message. */
    private static String materializerState(String topic) {
        StringBuilder out = new StringBuilder("the broker's view:");
        try {
            String body = HttpClient.newHttpClient()
                    .send(
                            HttpRequest.newBuilder(URI.create(STOCK.webServiceUrl() + "/metrics/"))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString())
                    .body();
            body.lines()
                    .filter(l -> l.startsWith("lakestream_iceberg_") && l.contains("topic=\"" + topic + "\""))
                    .forEach(l -> out.append("\n  ").append(l));
            out.append("\n  entries added: ").append(admin.topics().getInternalStats(topic).numberOfEntries);
        } catch (Exception e) {
            out.append(" not readable (").append(e).append(')');
        }
        return out.toString();
    }

    /**
     * The rows by message index (the message key; for the KeyValue topic the key column), checking that every index
     * is there once and every message position once: no duplicates, no gaps.
     */
    private static Map<Integer, Record> byIndex(String topic) {
        List<Record> rows = tables.rows(topic);
        Map<Integer, Record> out = new TreeMap<>();
        Set<String> positions = new HashSet<>();
        for (Record r : rows) {
            // A KeyValue table has a key column (the message key is the KeyValue's, base64); others the message key.
            int index = r.struct().field("key") != null
                    ? (Integer) r.getField("key")
                    : Integer.parseInt((String) r.getField(MetadataColumns.KEY));
            assertThat(out.put(index, r))
                    .as("message %d of %s twice", index, topic)
                    .isNull();
            assertThat(positions.add(IcebergTables.position(r)))
                    .as("position %s of %s twice", IcebergTables.position(r), topic)
                    .isTrue();
        }
        assertThat(out.keySet())
                .as("the messages of %s", topic)
                .containsExactlyElementsOf(
                        java.util.stream.IntStream.range(0, rows.size()).boxed().toList());
        return out;
    }

    private static long epochMillis(Object timestamp) {
        if (timestamp instanceof OffsetDateTime o) {
            return o.toInstant().toEpochMilli();
        }
        if (timestamp instanceof java.time.LocalDateTime l) {
            return l.toInstant(java.time.ZoneOffset.UTC).toEpochMilli();
        }
        throw new AssertionError("not a timestamp: " + timestamp + " (" + timestamp.getClass() + ")");
    }

    private static String sampleLine(String body, String name, String label) {
        return body.lines()
                .filter(l -> l.startsWith(name + "{") && l.contains(label))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no sample " + name + " with " + label + " in /metrics"));
    }
}
