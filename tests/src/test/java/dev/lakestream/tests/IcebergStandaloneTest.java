package dev.lakestream.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lakestream.iceberg.CatalogConfig;
import dev.lakestream.iceberg.CommitSummary;
import dev.lakestream.iceberg.tool.MaterializeCommand;
import dev.lakestream.iceberg.tool.StatusFile;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.avro.Conversions;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.apache.pulsar.client.api.CompressionType;
import org.apache.pulsar.client.api.MessageId;
import org.apache.pulsar.client.api.Producer;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.Schema;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The standalone materializer ({@code lakestream-materialize}, no broker involved in materializing) on what a real
 * broker stored: the real Pulsar client publishes Avro (nested record, array, map, decimal, date, timestamp, uuid,
 * optional field) to a partitioned topic, batched and LZ4-compressed; a {@code --once} pass makes the table, and two
 * independent readers read it back: Iceberg's own {@code IcebergGenerics} and pyiceberg (a Python process), row for
 * row over every column. Then a separate materializer process and an in-process one race on the same topic while
 * more is published: every message is in the table exactly once and the committed ranges chain without gap.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class IcebergStandaloneTest {

    @RegisterExtension
    static final PulsarBrokerExtension BROKER = PulsarBrokerExtension.onS3ProxyAndOxia();

    @TempDir
    static Path dir;

    private static final String TOPIC = "persistent://public/default/orders";
    private static final TableIdentifier TABLE = TableIdentifier.of("public", "default", "orders");
    private static final int FIRST = 120;
    private static final int RACED = 400;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final org.apache.avro.Schema AVRO = new org.apache.avro.Schema.Parser().parse("""
            {"type": "record", "name": "Order", "namespace": "dev.lakestream.tests", "fields": [
              {"name": "id", "type": "long"},
              {"name": "customer", "type": {"type": "record", "name": "Customer", "fields": [
                {"name": "name", "type": "string"},
                {"name": "tags", "type": {"type": "array", "items": "string"}}]}},
              {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal", "precision": 10, "scale": 2}},
              {"name": "day", "type": {"type": "int", "logicalType": "date"}},
              {"name": "at", "type": {"type": "long", "logicalType": "timestamp-micros"}},
              {"name": "ref", "type": {"type": "string", "logicalType": "uuid"}},
              {"name": "attrs", "type": {"type": "map", "values": "int"}},
              {"name": "note", "type": ["null", "string"], "default": null}]}""");

    private static StandaloneToolsConf tools() {
        return new StandaloneToolsConf(BROKER, dir);
    }

    private static Path conf(String statusFile) throws IOException {
        return tools().write(statusFile, "public/default");
    }

    private static Path catalogDb() {
        return tools().catalogDb();
    }

    private static String warehouse() {
        return tools().warehouse();
    }

    static byte[] order(long id) {
        GenericData.Record customer =
                new GenericData.Record(AVRO.getField("customer").schema());
        customer.put("name", "customer-" + (id % 7));
        customer.put("tags", List.of("t" + (id % 3), "u" + id));
        GenericData.Record r = new GenericData.Record(AVRO);
        r.put("id", id);
        r.put("customer", customer);
        org.apache.avro.Schema amount = AVRO.getField("amount").schema();
        r.put("amount", new Conversions.DecimalConversion().toBytes(amount(id), amount, amount.getLogicalType()));
        r.put("day", (int) day(id).toEpochDay());
        r.put("at", ChronoUnit.MICROS.between(OffsetDateTime.of(1970, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC), at(id)));
        r.put("ref", ref(id).toString());
        r.put("attrs", Map.of("qty", (int) (id % 5), "rank", (int) id));
        r.put("note", id % 4 == 0 ? null : "note " + id);
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            BinaryEncoder enc = EncoderFactory.get().binaryEncoder(out, null);
            new GenericDatumWriter<GenericData.Record>(AVRO).write(r, enc);
            enc.flush();
            return out.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static BigDecimal amount(long id) {
        return BigDecimal.valueOf(id * 101 + 7, 2);
    }

    static LocalDate day(long id) {
        return LocalDate.of(2026, 1, 1).plusDays(id % 300);
    }

    static OffsetDateTime at(long id) {
        return OffsetDateTime.of(2026, 12, 1, 8, 0, 0, 0, ZoneOffset.UTC).plusNanos(id * 1_001_000L);
    }

    static UUID ref(long id) {
        return new UUID(0x1234_5678_9abcL, id);
    }

    private static void publish(PulsarClient client, long from, int count, long pauseEvery) throws Exception {
        try (Producer<byte[]> producer = client.newProducer(Schema.NATIVE_AVRO(AVRO))
                .topic(TOPIC)
                .enableBatching(true)
                .batchingMaxMessages(10)
                .batchingMaxPublishDelay(5, TimeUnit.MILLISECONDS)
                .compressionType(CompressionType.LZ4)
                .create()) {
            List<CompletableFuture<MessageId>> sent = new ArrayList<>();
            for (long id = from; id < from + count; id++) {
                sent.add(producer.newMessage()
                        .key("k" + id)
                        .property("n", Long.toString(id))
                        .eventTime(1_764_000_000_000L + id)
                        .value(order(id))
                        .sendAsync());
                if (pauseEvery > 0 && id % pauseEvery == 0) {
                    producer.flush();
                    Thread.sleep(20);
                }
            }
            producer.flush();
            for (CompletableFuture<MessageId> f : sent) {
                f.join();
            }
        }
    }

    private static Catalog catalog() {
        return tools().catalog();
    }

    private static List<Record> rows(Table table) throws IOException {
        table.refresh();
        List<Record> out = new ArrayList<>();
        try (CloseableIterable<Record> it = IcebergGenerics.read(table).build()) {
            it.forEach(r -> out.add(r.copy()));
        }
        out.sort(Comparator.<Record>comparingInt(r -> (Integer) r.getField("_pulsar_partition"))
                .thenComparingLong(r -> (Long) r.getField("_pulsar_offset"))
                .thenComparingInt(r -> (Integer) r.getField("_pulsar_batch_index")));
        return out;
    }

    /** Each published id exactly once, in a row holding what was published. */
    private static void assertExactlyOnce(List<Record> rows, int n) {
        Map<Long, Integer> seen = new HashMap<>();
        for (Record r : rows) {
            long id = (Long) r.getField("id");
            seen.merge(id, 1, Integer::sum);
            assertThat(r.getField("_pulsar_key")).isEqualTo("k" + id);
            assertThat(r.getField("_pulsar_properties")).isEqualTo(Map.of("n", Long.toString(id)));
            assertThat(((OffsetDateTime) r.getField("_pulsar_event_time"))
                            .toInstant()
                            .toEpochMilli())
                    .isEqualTo(1_764_000_000_000L + id);
            Record customer = (Record) r.getField("customer");
            assertThat(customer.getField("name")).isEqualTo("customer-" + (id % 7));
            assertThat(customer.getField("tags")).isEqualTo(List.of("t" + (id % 3), "u" + id));
            assertThat(r.getField("amount")).isEqualTo(amount(id));
            assertThat(r.getField("day")).isEqualTo(day(id));
            assertThat(r.getField("at")).isEqualTo(at(id));
            assertThat(r.getField("ref")).isEqualTo(ref(id));
            assertThat(r.getField("attrs")).isEqualTo(Map.of("qty", (int) (id % 5), "rank", (int) id));
            assertThat(r.getField("note")).isEqualTo(id % 4 == 0 ? null : "note " + id);
        }
        List<Long> duplicates = seen.entrySet().stream()
                .filter(e -> e.getValue() > 1)
                .map(Map.Entry::getKey)
                .sorted()
                .toList();
        List<Long> missing = new ArrayList<>();
        for (long id = 0; id < n; id++) {
            if (!seen.containsKey(id)) {
                missing.add(id);
            }
        }
        assertThat(duplicates).as("duplicates").isEmpty();
        assertThat(missing).as("gaps").isEmpty();
        assertThat(rows).hasSize(n);
    }

    @Test
    @Order(1)
    void oncePassMakesATableThatPyIcebergAndIcebergGenericsReadRowForRow() throws Exception {
        BROKER.admin().topics().createPartitionedTopic(TOPIC, 2);
        try (PulsarClient client = BROKER.newClient()) {
            publish(client, 0, FIRST, 0);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = MaterializeCommand.run(
                new String[] {"--conf", conf("once").toString(), "--once"},
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8),
                null);
        assertThat(code).as(err.toString(StandardCharsets.UTF_8)).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8))
                .contains(TOPIC + "-partition-0 -> public.default.orders")
                .contains(TOPIC + "-partition-1 -> public.default.orders")
                .contains("2 topic partitions, 0 incomplete");

        Catalog catalog = catalog();
        Table table = catalog.loadTable(TABLE);
        List<Record> rows = rows(table);
        assertExactlyOnce(rows, FIRST);
        assertThat(rows).extracting(r -> r.getField("_pulsar_partition")).containsOnly(0, 1);
        assertThat(rows)
                .allSatisfy(
                        r -> assertThat((Long) r.getField("_pulsar_ledger_id")).isNotNegative());

        JsonNode py =
                PyIceberg.readTable(catalogDb(), warehouse(), CatalogConfig.DEFAULT_NAME, "public.default.orders");
        JsonNode java =
                JSON.readTree(JSON.writeValueAsString(plainRows(table.schema().asStruct(), rows)));
        assertThat(py.get("rows").size()).isEqualTo(FIRST);
        for (int i = 0; i < FIRST; i++) {
            assertThat(py.get("rows").get(i))
                    .as("row %d (pyiceberg vs IcebergGenerics)", i)
                    .isEqualTo(java.get(i));
        }
        JsonNode summary =
                py.get("snapshot_summaries").get(py.get("snapshot_summaries").size() - 1);
        Map<Long, Long> offsets = CommitSummary.committedOffsets(table);
        offsets.forEach((stream, offset) -> assertThat(
                        summary.get(CommitSummary.OFFSET_PREFIX + stream).asText())
                .isEqualTo(Long.toString(offset)));
    }

    @Test
    @Order(2)
    void aStandaloneProcessRacingAnotherMaterializerCommitsEachMessageOnce() throws Exception {
        Path processLog = dir.resolve("process.log");
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--add-opens",
                "java.base/java.nio=ALL-UNNAMED",
                "--add-opens",
                "java.base/jdk.internal.misc=ALL-UNNAMED",
                "-Dio.netty.tryReflectionSetAccessible=true",
                "--enable-native-access=ALL-UNNAMED",
                "-Xmx512m",
                "-cp",
                System.getProperty("java.class.path"),
                MaterializeCommand.class.getName(),
                "--conf",
                conf("process").toString()));
        if (Runtime.version().feature() >= 24) {
            command.add(1, "--sun-misc-unsafe-memory-access=allow");
        }
        Process process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(processLog.toFile())
                .start();
        CountDownLatch stop = new CountDownLatch(1);
        Path inProcessConf = conf("inprocess");
        CompletableFuture<Integer> inProcess = CompletableFuture.supplyAsync(() -> MaterializeCommand.run(
                new String[] {"--conf", inProcessConf.toString()}, System.out, System.err, stop));
        try {
            // Both running and past their first look at the table before anything new is published.
            await("the process materializing both partitions")
                    .atMost(Duration.ofMinutes(3))
                    .ignoreExceptionsInstanceOf(Exception.class)
                    .until(() -> {
                        String log = Files.readString(processLog);
                        return log.contains("materializing " + TOPIC + "-partition-0")
                                && log.contains("materializing " + TOPIC + "-partition-1");
                    });
            try (PulsarClient client = BROKER.newClient()) {
                publish(client, FIRST, RACED, 25);
            }
            Table table = catalog().loadTable(TABLE);
            await("every message in the table")
                    .atMost(Duration.ofMinutes(3))
                    .ignoreExceptionsInstanceOf(Exception.class)
                    .until(() -> rows(table).size() >= FIRST + RACED);
        } finally {
            process.destroy(); // SIGTERM: commits what is pending, then exits
            stop.countDown();
        }
        assertThat(process.waitFor(120, TimeUnit.SECONDS))
                .as("the process stopped on SIGTERM")
                .isTrue();
        assertThat(inProcess.get(120, TimeUnit.SECONDS)).isZero();
        String log = Files.readString(processLog);
        assertThat(log)
                .as(log)
                .contains("materializing persistent://public/default/orders-partition-0")
                .contains("stopping: committing what is pending")
                .doesNotContain("Exception in thread");

        // Both took part: each committed ranges or found that the other had committed them first.
        for (String who : List.of("process", "inprocess")) {
            StatusFile.Snapshot last = StatusFile.read(dir.resolve(who)).orElseThrow();
            assertThat(last.running()).isFalse();
            long commits =
                    last.topics().stream().mapToLong(StatusFile.Topic::commits).sum();
            long conflicts =
                    last.topics().stream().mapToLong(t -> t.conflicts()).sum();
            System.out.printf("[IcebergStandaloneTest] %s: %d commits, %d conflicts%n", who, commits, conflicts);
            assertThat(commits + conflicts)
                    .as("%s committed or lost a race", who)
                    .isPositive();
        }
        Table table = catalog().loadTable(TABLE);
        assertExactlyOnce(rows(table), FIRST + RACED);
        // The committed ranges of each stream chain: every commit starts where the previous one ended.
        Map<Long, List<long[]>> ranges = new TreeMap<>();
        List<Snapshot> snapshots = new ArrayList<>();
        table.snapshots().forEach(snapshots::add);
        snapshots.sort(Comparator.comparingLong(Snapshot::sequenceNumber));
        for (Snapshot s : snapshots) {
            String range = s.summary().get(CommitSummary.RANGE);
            if (range != null) {
                String[] p = range.split("[:-]", -1);
                ranges.computeIfAbsent(Long.parseLong(p[0]), k -> new ArrayList<>())
                        .add(new long[] {Long.parseLong(p[1]), Long.parseLong(p[2])});
            }
        }
        assertThat(ranges).hasSize(2);
        ranges.forEach((stream, list) -> {
            for (int i = 1; i < list.size(); i++) {
                assertThat(list.get(i)[0])
                        .as("stream %d commit %d starts where commit %d ended", stream, i, i - 1)
                        .isEqualTo(list.get(i - 1)[1]);
            }
        });
    }

    /** The rows as read_table.py prints them (see that script for the plain form of each type). */
    static List<Map<String, Object>> plainRows(Types.StructType struct, List<Record> rows) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Record r : rows) {
            out.add(plainStruct(struct, r));
        }
        return out;
    }

    private static Map<String, Object> plainStruct(Types.StructType struct, Record r) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (Types.NestedField f : struct.fields()) {
            m.put(f.name(), plain(r.getField(f.name())));
        }
        return m;
    }

    private static Object plain(Object v) {
        if (v == null
                || v instanceof Boolean
                || v instanceof Integer
                || v instanceof Long
                || v instanceof String
                || v instanceof Double) {
            return v;
        }
        if (v instanceof Float f) {
            return (double) f;
        }
        if (v instanceof OffsetDateTime t) {
            return ChronoUnit.MICROS.between(OffsetDateTime.of(1970, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC), t);
        }
        if (v instanceof LocalDateTime t) {
            return ChronoUnit.MICROS.between(LocalDateTime.of(1970, 1, 1, 0, 0), t);
        }
        if (v instanceof LocalDate d) {
            return d.toEpochDay();
        }
        if (v instanceof LocalTime t) {
            return t.toNanoOfDay() / 1000;
        }
        if (v instanceof BigDecimal d) {
            return d.toPlainString();
        }
        if (v instanceof ByteBuffer b) {
            ByteBuffer d = b.duplicate();
            byte[] bytes = new byte[d.remaining()];
            d.get(bytes);
            return Base64.getEncoder().encodeToString(bytes);
        }
        if (v instanceof byte[] bytes) {
            return Base64.getEncoder().encodeToString(bytes);
        }
        if (v instanceof UUID u) {
            return Base64.getEncoder()
                    .encodeToString(ByteBuffer.allocate(16)
                            .putLong(u.getMostSignificantBits())
                            .putLong(u.getLeastSignificantBits())
                            .array());
        }
        if (v instanceof Record r) {
            return plainStruct(r.struct(), r);
        }
        if (v instanceof Map<?, ?> map) {
            Map<String, Object> m = new TreeMap<>();
            map.forEach((k, x) -> m.put(k.toString(), plain(x)));
            return m;
        }
        if (v instanceof List<?> list) {
            return list.stream().map(IcebergStandaloneTest::plain).toList();
        }
        throw new IllegalArgumentException("no plain form for " + v.getClass() + ": " + v);
    }
}
