package dev.lakestream.iceberg.bench;

import com.sun.management.OperatingSystemMXBean;
import dev.lakestream.core.Lakestream;
import dev.lakestream.core.StreamLog;
import dev.lakestream.core.bench.CoreBenchAccess;
import dev.lakestream.core.catalog.StreamInfo;
import dev.lakestream.core.config.ConfigReader;
import dev.lakestream.core.metadata.embedded.EmbeddedMetadataStoreConfig;
import dev.lakestream.core.objectstore.fs.FileSystemObjectStoreConfig;
import dev.lakestream.iceberg.CatalogConfig;
import dev.lakestream.iceberg.Catalogs;
import dev.lakestream.iceberg.CommitSummary;
import dev.lakestream.iceberg.DeadLetters;
import dev.lakestream.iceberg.MaterializerConfig;
import dev.lakestream.iceberg.MaterializerRunner;
import dev.lakestream.iceberg.Materializers;
import dev.lakestream.iceberg.TopicMaterializer;
import dev.lakestream.iceberg.pulsar.PulsarEntries;
import dev.lakestream.pulsar.schema.LakestreamSchemaStorage;
import dev.lakestream.testkit.BenchCommandLine;
import dev.lakestream.testkit.BenchmarksDoc;
import io.netty.buffer.ByteBuf;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FanoutDataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.pulsar.broker.service.schema.proto.SchemaInfo;
import org.apache.pulsar.common.api.proto.CompressionType;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The Iceberg materializer's benchmark ({@code bin/bench-iceberg}), on the embedded pair (a directory object store
 * and the RocksDB metadata store) with the embedded catalog (JdbcCatalog on SQLite, local warehouse):
 * <ol>
 *   <li><b>throughput</b>: a topic of Avro messages (batches of 100, as a batching producer writes them) is
 *       materialized from the start by a {@link TopicMaterializer} (10 s commit interval); rows/s, MiB/s of Parquet
 *       and CPU per MiB; then the very same rows (read back from the table) are written with Iceberg's writer alone
 *       (the same writer classes, schema and partitioning, one commit) and the ratio of the two is the cost of
 *       everything around the writer (reading the log, decoding Pulsar's format and Avro, commits);</li>
 *   <li><b>freshness</b>: entries appended at a fixed rate while a {@link MaterializerRunner} runs with the default
 *       10 s commit interval; a watcher refreshes the table every 100 ms and, at each new snapshot, counts the new
 *       rows with a table scan; an entry's freshness is from the start of its append to that moment.</li>
 * </ol>
 * Both count the rows read back against the rows appended (every append acknowledged): rows committed and rows
 * scanned from the table in the throughput run, rows scanned by the watcher in the freshness run. A shortfall (or
 * a surplus) fails the benchmark: LOST lines after the report, exit status 1, the doc not written.
 *
 * <p>Options: {@code --quick} (short runs, report only), {@code --no-doc}, {@code --doc FILE}, {@code --command CMD}.
 */
public final class IcebergBenchmark {

    private static final String HEADING = "## Iceberg materialization";
    private static final int BATCH = 100;
    private static final org.apache.avro.Schema AVRO = new org.apache.avro.Schema.Parser().parse("""
            {"type": "record", "name": "Order", "fields": [
              {"name": "id", "type": "long"},
              {"name": "customer", "type": "string"},
              {"name": "category", "type": "string"},
              {"name": "price", "type": "double"},
              {"name": "quantity", "type": "int"},
              {"name": "created", "type": {"type": "long", "logicalType": "timestamp-millis"}},
              {"name": "express", "type": "boolean"},
              {"name": "note", "type": ["null", "string"], "default": null}]}""");

    private final Path dir;
    private final Lakestream log;
    private final Catalog catalog;
    private final ExecutorService executor = Executors.newCachedThreadPool();
    private final LakestreamSchemaStorage schemas;
    private final OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    /** The counts that did not match what was appended. */
    private final List<String> rowFailures = new ArrayList<>();

    private IcebergBenchmark(Path dir) {
        this.dir = dir;
        this.log = Lakestream.open(new ConfigReader(Map.of(
                "lakestream.objectStore",
                "filesystem",
                FileSystemObjectStoreConfig.ROOT,
                dir.resolve("objects").toString(),
                FileSystemObjectStoreConfig.FSYNC,
                "false",
                "lakestream.metadataStore",
                "embedded",
                EmbeddedMetadataStoreConfig.DATA_DIR,
                dir.resolve("metadata").toString())));
        this.schemas =
                new LakestreamSchemaStorage(log.metadataStore(), log.config().metadataRoot(), executor);
        this.catalog = Catalogs.open(CatalogConfig.embedded(dir));
    }

    public static void main(String[] args) throws Exception {
        Options options = BenchCommandLine.parseOrExit(new Options(), args);
        boolean quick = options.quick;
        boolean writeDoc = !options.noDoc;
        Path doc = options.doc;
        String command = options.command;
        if (quick) {
            writeDoc = false;
        }
        int rows = quick ? 50_000 : 300_000;
        int rate = 2_000;
        int seconds = quick ? 30 : 120;
        Path dir = Files.createTempDirectory("bench-iceberg-");
        IcebergBenchmark b = new IcebergBenchmark(dir);
        CoreBenchAccess.Cpu others = new CoreBenchAccess.Cpu();
        others.start();
        String load0 = CoreBenchAccess.loadAverage();
        // A first, smaller round warms the JIT up for both writers; reported apart (the cold figures).
        Throughput warm = b.throughput("warmup", rows / 5);
        System.out.println("[bench-iceberg] warm-up: " + warm);
        Throughput t = b.throughput("throughput", rows);
        System.out.println(t);
        Freshness f = b.freshness(rate, seconds);
        System.out.println(f);
        CoreBenchAccess.Usage usage = others.stop();
        String section = report(warm, t, f, command, load0, CoreBenchAccess.loadAverage(), usage);
        System.out.println(section);
        List<String> failures = b.rowFailures;
        if (writeDoc && failures.isEmpty()) {
            BenchmarksDoc.writeSection(doc, HEADING, section);
            System.out.println("[bench-iceberg] wrote the section '" + HEADING + "' of " + doc);
        }
        b.close();
        try (var files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
        if (!failures.isEmpty()) {
            // After the report, so that its figures are visible; the doc keeps its last passing run.
            failures.forEach(System.out::println);
            System.out.println(
                    "[bench-iceberg] FAILED: the rows appended were not all read back; the doc was not" + " written");
            System.exit(1);
        }
        System.exit(0);
    }

    /** The command line (the class comment's options). */
    @Command(name = "IcebergBenchmark", showDefaultValues = true)
    static final class Options {
        @Option(names = "--quick")
        boolean quick;

        @Option(names = "--no-doc")
        boolean noDoc;

        @Option(names = "--doc", paramLabel = "FILE")
        Path doc = Path.of("docs/benchmarks.md");

        @Option(names = "--command", paramLabel = "CMD")
        String command = "bin/bench-iceberg";

        @Option(
                names = {"-h", "--help"},
                usageHelp = true)
        boolean help;
    }

    // ---- the data ----

    private long registerSchema(String schemaId) throws Exception {
        byte[] data = AVRO.toString().getBytes(StandardCharsets.UTF_8);
        SchemaInfo info = new SchemaInfo()
                .setSchemaId(schemaId)
                .setUser("bench")
                .setType(SchemaInfo.SchemaType.AVRO)
                .setSchema(data)
                .setTimestamp(System.currentTimeMillis())
                .setDeleted(false);
        byte[] hash = MessageDigest.getInstance("SHA-256").digest(data);
        var v = schemas.put(schemaId, info.toByteArray(), hash).join();
        return java.nio.ByteBuffer.wrap(v.bytes()).getLong();
    }

    private static byte[] order(long id, long now) {
        GenericData.Record r = new GenericData.Record(AVRO);
        r.put("id", id);
        r.put("customer", "customer-" + (id % 10_007));
        r.put(
                "category",
                switch ((int) (id % 4)) {
                    case 0 -> "books";
                    case 1 -> "garden";
                    case 2 -> "kitchen";
                    default -> "toys";
                });
        r.put("price", (id % 10_000) / 100.0);
        r.put("quantity", (int) (id % 17) + 1);
        r.put("created", now - id % 86_400_000);
        r.put("express", id % 3 == 0);
        r.put("note", id % 5 == 0 ? null : "deliver to door " + (id % 97) + ", ring twice");
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream(128);
            BinaryEncoder enc = EncoderFactory.get().binaryEncoder(out, null);
            new GenericDatumWriter<GenericData.Record>(AVRO).write(r, enc);
            enc.flush();
            return out.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static ByteBuf entry(long firstId, long schemaVersion, long publishTime) {
        List<PulsarEntries.Msg> msgs = new ArrayList<>(BATCH);
        for (long id = firstId; id < firstId + BATCH; id++) {
            msgs.add(new PulsarEntries.Msg("k" + (id % 1000), Map.of(), 0, id, order(id, publishTime)));
        }
        return PulsarEntries.batch("bench", publishTime, schemaVersion, CompressionType.NONE, msgs, false);
    }

    /** A topic's stream and the version of its schema. */
    private record Topic(StreamInfo stream, long schemaVersion) {}

    private Topic topic(String local) throws Exception {
        StreamInfo s = log.catalog()
                .create(Materializers.MANAGED_LEDGERS, "bench/iceberg/persistent/" + local, Map.of())
                .join();
        return new Topic(s, registerSchema("bench/iceberg/" + local));
    }

    private long cpuNanos() {
        return os.getProcessCpuTime();
    }

    // ---- throughput ----

    record Throughput(
            long rows,
            long parquetBytes,
            double seconds,
            double cpuSeconds,
            int files,
            long aloneBytes,
            double aloneSeconds,
            double aloneCpuSeconds,
            int aloneFiles,
            long payloadBytes) {
        double rowsPerSecond() {
            return rows / seconds;
        }

        double mibPerSecond() {
            return parquetBytes / seconds / (1 << 20);
        }

        double aloneRowsPerSecond() {
            return rows / aloneSeconds;
        }

        double aloneMibPerSecond() {
            return aloneBytes / aloneSeconds / (1 << 20);
        }

        double ratio() {
            return rowsPerSecond() / aloneRowsPerSecond();
        }

        double cpuPerMib() {
            return cpuSeconds / (parquetBytes / (double) (1 << 20));
        }

        double aloneCpuPerMib() {
            return aloneCpuSeconds / (aloneBytes / (double) (1 << 20));
        }

        @Override
        public String toString() {
            return String.format(
                    Locale.ROOT,
                    "throughput: %d rows in %.1f s (%.0f rows/s, %.2f MiB/s Parquet,"
                            + " %.2f CPU s/MiB); writer alone %.1f s (%.0f rows/s, %.2f MiB/s, %.2f CPU s/MiB); ratio %.2f",
                    rows,
                    seconds,
                    rowsPerSecond(),
                    mibPerSecond(),
                    cpuPerMib(),
                    aloneSeconds,
                    aloneRowsPerSecond(),
                    aloneMibPerSecond(),
                    aloneCpuPerMib(),
                    ratio());
        }
    }

    private Throughput throughput(String name, int rows) throws Exception {
        Topic topic = topic(name);
        StreamInfo s = topic.stream();
        long version = topic.schemaVersion();
        StreamLog stream = log.stream(s);
        long now = System.currentTimeMillis();
        long payload = 0;
        List<CompletableFuture<?>> acks = new ArrayList<>();
        System.out.printf("[bench-iceberg] appending %d messages in entries of %d%n", rows, BATCH);
        for (long id = 0; id < rows; id += BATCH) {
            ByteBuf e = entry(id, version, now);
            payload += e.readableBytes();
            acks.add(stream.append(1, e));
            e.release();
            if (acks.size() == 200) {
                acks.forEach(CompletableFuture::join);
                acks.clear();
            }
        }
        acks.forEach(CompletableFuture::join);

        System.out.println("[bench-iceberg] materializing");
        Materializers materializers =
                new Materializers(log, catalog, MaterializerConfig.DEFAULT, DeadLetters.log(), executor);
        TopicMaterializer m = materializers.materializer(s);
        System.gc();
        long cpu0 = cpuNanos();
        long t0 = System.nanoTime();
        m.open();
        while (m.poll() > 0) {
            // read on
        }
        m.close();
        double seconds = (System.nanoTime() - t0) / 1e9;
        double cpu = (cpuNanos() - cpu0) / 1e9;
        if (m.status().lastError() != null) {
            throw new IllegalStateException("materialization of " + name + " did not complete: " + m.status());
        }
        checkRows(
                name + ": rows committed by the materializer", rows, m.status().rowsCommitted());
        Table table = catalog.loadTable(m.tableId());
        long bytes = 0;
        int files = 0;
        for (Snapshot sn : table.snapshots()) {
            bytes += Long.parseLong(sn.summary().getOrDefault("added-files-size", "0"));
            files += Integer.parseInt(sn.summary().getOrDefault("added-data-files", "0"));
        }

        // The same rows, written by Iceberg's writer alone into a table of the same schema and partitioning.
        List<Record> same = new ArrayList<>(rows);
        try (CloseableIterable<Record> it = IcebergGenerics.read(table).build()) {
            it.forEach(r -> same.add(r.copy()));
        }
        checkRows(name + ": rows scanned from the table", rows, same.size());
        same.sort(Comparator.comparingLong(r -> (Long) r.getField("_pulsar_sequence_id")));
        TableIdentifier aloneId = TableIdentifier.of("bench", "iceberg", name + "_writer_alone");
        Table alone = catalog.createTable(aloneId, table.schema(), table.spec(), table.properties());
        System.gc();
        long cpu1 = cpuNanos();
        long t1 = System.nanoTime();
        GenericFileWriterFactory factory = new GenericFileWriterFactory.Builder(alone)
                .dataFileFormat(FileFormat.PARQUET)
                .dataSchema(alone.schema())
                .build();
        OutputFileFactory out = OutputFileFactory.builderFor(alone, 0, System.currentTimeMillis())
                .format(FileFormat.PARQUET)
                .operationId(UUID.randomUUID().toString())
                .build();
        FanoutDataWriter<Record> writer =
                new FanoutDataWriter<>(factory, out, alone.io(), MaterializerConfig.DEFAULT.targetFileSizeBytes());
        InternalRecordWrapper wrapper = new InternalRecordWrapper(alone.schema().asStruct());
        PartitionKey key = new PartitionKey(alone.spec(), alone.schema());
        for (Record r : same) {
            key.partition(wrapper.wrap(r));
            writer.write(r, alone.spec(), key);
        }
        writer.close();
        AppendFiles append = alone.newAppend();
        long aloneBytes = 0;
        for (DataFile f : writer.result().dataFiles()) {
            append.appendFile(f);
            aloneBytes += f.fileSizeInBytes();
        }
        append.commit();
        double aloneSeconds = (System.nanoTime() - t1) / 1e9;
        double aloneCpu = (cpuNanos() - cpu1) / 1e9;
        return new Throughput(
                rows,
                bytes,
                seconds,
                cpu,
                files,
                aloneBytes,
                aloneSeconds,
                aloneCpu,
                writer.result().dataFiles().size(),
                payload);
    }

    // ---- freshness ----

    record Freshness(int rate, int seconds, long entries, CoreBenchAccess.Latency latency, int commits, long rowsSeen) {
        @Override
        public String toString() {
            return String.format(
                    Locale.ROOT,
                    "freshness at %d msg/s for %d s: %d entries, p50 %.0f ms, p99 %.0f ms,"
                            + " max %.0f ms over %d commits",
                    rate,
                    seconds,
                    entries,
                    latency.millis(0.50),
                    latency.millis(0.99),
                    latency.maxMillis(),
                    commits);
        }
    }

    private Freshness freshness(int rate, int seconds) throws Exception {
        Topic topic = topic("freshness");
        StreamInfo s = topic.stream();
        long version = topic.schemaVersion();
        StreamLog stream = log.stream(s);
        Materializers materializers =
                new Materializers(log, catalog, MaterializerConfig.DEFAULT, DeadLetters.log(), executor);
        MaterializerRunner runner = materializers.runner(s).start();
        int entriesPerSecond = rate / BATCH;
        long total = (long) entriesPerSecond * seconds;
        long[] appendStart = new long[(int) total];
        CoreBenchAccess.Latency latency = new CoreBenchAccess.Latency();
        AtomicBoolean done = new AtomicBoolean();
        int[] commits = {0};
        long[] rowsSeen = {0};
        Thread watcher = Thread.ofPlatform().name("freshness-watcher").start(() -> {
            Table table = null;
            long seenOffset = 0;
            long lastSnapshot = -1;
            while (!done.get() || seenOffset < total) {
                try {
                    if (table == null) {
                        if (!catalog.tableExists(runner.materializer().tableId())) {
                            Thread.sleep(100);
                            continue;
                        }
                        table = catalog.loadTable(runner.materializer().tableId());
                    }
                    table.refresh();
                    Snapshot current = table.currentSnapshot();
                    if (current != null && current.snapshotId() != lastSnapshot) {
                        long now = System.nanoTime();
                        lastSnapshot = current.snapshotId();
                        Long end = CommitSummary.committedOffsets(table).get(s.id());
                        if (end != null && end > seenOffset) {
                            // A real scan of the rows this snapshot made visible.
                            long n = 0;
                            try (CloseableIterable<Record> it = IcebergGenerics.read(table)
                                    .where(Expressions.greaterThanOrEqual("_pulsar_offset", seenOffset))
                                    .build()) {
                                for (Record ignored : it) {
                                    n++;
                                }
                            }
                            rowsSeen[0] += n;
                            for (long o = seenOffset; o < end; o++) {
                                latency.record(now - appendStart[(int) o]);
                            }
                            seenOffset = end;
                            commits[0]++;
                        }
                    }
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    return;
                } catch (IOException | RuntimeException e) {
                    throw new IllegalStateException("the freshness watcher failed", e);
                }
            }
        });
        System.out.printf(
                "[bench-iceberg] appending %d msg/s (%d entries/s) for %d s%n", rate, entriesPerSecond, seconds);
        long intervalNanos = 1_000_000_000L / entriesPerSecond;
        long start = System.nanoTime();
        List<CompletableFuture<?>> acks = new ArrayList<>();
        for (long i = 0; i < total; i++) {
            long due = start + i * intervalNanos;
            long wait = due - System.nanoTime();
            if (wait > 0) {
                Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
            }
            appendStart[(int) i] = System.nanoTime();
            ByteBuf e = entry(i * BATCH, version, System.currentTimeMillis());
            acks.add(stream.append(1, e));
            e.release();
        }
        acks.forEach(CompletableFuture::join);
        done.set(true);
        watcher.join(120_000);
        runner.close();
        checkRows("freshness: rows scanned by the watcher", total * BATCH, rowsSeen[0]);
        return new Freshness(rate, seconds, total, latency, commits[0], rowsSeen[0]);
    }

    /** Records a failure when {@code read} rows are not the {@code appended} ones (all acknowledged appends). */
    private void checkRows(String what, long appended, long read) {
        if (read != appended) {
            rowFailures.add(String.format(
                    Locale.ROOT,
                    "%s: %,d rows %s (%s: %,d appended, %,d read)",
                    read < appended ? "LOST" : "EXTRA",
                    Math.abs(appended - read),
                    read < appended ? "appended and not read" : "read more than appended",
                    what,
                    appended,
                    read));
        }
    }

    // ---- the report ----

    private static String report(
            Throughput warm,
            Throughput t,
            Freshness f,
            String command,
            String load0,
            String load1,
            CoreBenchAccess.Usage others) {
        StringBuilder sb = new StringBuilder();
        sb.append(HEADING).append("\n\n");
        sb.append("`")
                .append(command)
                .append("` (`dev.lakestream.iceberg.bench.IcebergBenchmark`," + " iceberg-sink/src/bench/java), ")
                .append(LocalDate.now())
                .append(". Machine: ")
                .append(CoreBenchAccess.machineLine())
                .append(". Embedded pair (directory object store, RocksDB"
                        + " metadata store, no fsync) and the embedded catalog (JdbcCatalog on SQLite, local warehouse);"
                        + " Avro messages of 8 fields (a long, three strings, a double, an int, a timestamp, a boolean),"
                        + " in batches of ")
                .append(BATCH)
                .append(" per entry, no compression.\n\n");
        sb.append("**The machine was busy with other builds during the run** (load average ")
                .append(load0)
                .append(" at the start, ")
                .append(load1)
                .append(" at the end; other processes kept ")
                .append(String.format(Locale.ROOT, "%.2f", others.otherCores()))
                .append(" cores busy on average): the absolute figures are low and noisy; read the two writers"
                        + " side by side (measured back to back in one JVM), in rows/s and in CPU time.\n\n");
        sb.append("### Throughput: materializer vs Iceberg's writer alone\n\n");
        sb.append("| | rows | seconds | rows/s | Parquet MiB | MiB/s | data files | CPU s | CPU s per MiB |\n");
        sb.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        sb.append(String.format(
                Locale.ROOT,
                "| materializer (log → decode → Parquet → commits every 10 s) | %d |"
                        + " %.1f | %.0f | %.1f | %.2f | %d | %.1f | %.2f |%n",
                t.rows(),
                t.seconds(),
                t.rowsPerSecond(),
                t.parquetBytes() / (double) (1 << 20),
                t.mibPerSecond(),
                t.files(),
                t.cpuSeconds(),
                t.cpuPerMib()));
        sb.append(String.format(
                Locale.ROOT,
                "| Iceberg writer alone (the same rows from memory, one commit) | %d |"
                        + " %.1f | %.0f | %.1f | %.2f | %d | %.1f | %.2f |%n",
                t.rows(),
                t.aloneSeconds(),
                t.aloneRowsPerSecond(),
                t.aloneBytes() / (double) (1 << 20),
                t.aloneMibPerSecond(),
                t.aloneFiles(),
                t.aloneCpuSeconds(),
                t.aloneCpuPerMib()));
        sb.append(String.format(
                Locale.ROOT,
                "%n**Ratio materializer / writer alone: %.2f** (target ≥ 0.8) in"
                        + " rows/s; **%.2f** in CPU time for the same rows (the writer alone's CPU seconds / the"
                        + " materializer's), the steadier figure on a shared machine. The log held %.1f MiB of entries (Pulsar's format, Avro payloads). CPU is the"
                        + " benchmark JVM's process CPU time over the phase (all its threads: reading, decoding,"
                        + " Parquet encoding, GC). These rows follow a first round of %d rows that warms the JIT up"
                        + " for both (not in the table): on that cold JVM the materializer made %.0f rows/s, the"
                        + " writer alone %.0f, ratio %.2f.%n%n",
                t.ratio(),
                t.aloneCpuSeconds() / t.cpuSeconds(),
                t.payloadBytes() / (double) (1 << 20),
                warm.rows(),
                warm.rowsPerSecond(),
                warm.aloneRowsPerSecond(),
                warm.ratio()));
        sb.append("### Freshness: append → row visible in a table scan\n\n");
        sb.append(String.format(
                Locale.ROOT,
                "%d messages/s (%d entries/s of %d) for %d s, a MaterializerRunner"
                        + " with the default settings (commit interval 10 s, poll interval 1 s); a watcher refreshes"
                        + " the table every 100 ms and scans the rows each new snapshot adds. Here and in the"
                        + " throughput run the rows read back (committed, scanned) are counted against the rows"
                        + " appended; a shortfall fails the benchmark (a LOST line, exit status 1, this section not"
                        + " written).%n%n",
                f.rate(),
                f.rate() / BATCH,
                BATCH,
                f.seconds()));
        sb.append("| entries | commits seen | rows scanned | p50 | p99 | max | target p99 |\n");
        sb.append("|---:|---:|---:|---:|---:|---:|---:|\n");
        sb.append(String.format(
                Locale.ROOT,
                "| %d | %d | %d | %.1f s | %.1f s | %.1f s | ≤ 15 s |%n%n",
                f.entries(),
                f.commits(),
                f.rowsSeen(),
                f.latency().millis(0.50) / 1000,
                f.latency().millis(0.99) / 1000,
                f.latency().maxMillis() / 1000));
        sb.append("Freshness is bounded by the commit interval: an entry waits for the next commit (up to 10 s,"
                + " 5 s on average), plus the poll interval and the commit itself.\n\n");
        sb.append("Other processes during the run:\n\n```\n")
                .append(others.summary())
                .append("\n```\n");
        return sb.toString();
    }

    private void close() throws Exception {
        if (catalog instanceof java.io.Closeable c) {
            c.close();
        }
        log.close();
        executor.shutdownNow();
    }
}
