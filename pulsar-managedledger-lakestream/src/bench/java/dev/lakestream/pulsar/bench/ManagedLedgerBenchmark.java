package dev.lakestream.pulsar.bench;

import dev.lakestream.core.Lakestream;
import dev.lakestream.core.LakestreamConfig;
import dev.lakestream.core.StreamLog;
import dev.lakestream.core.bench.CoreBenchAccess;
import dev.lakestream.core.catalog.StreamInfo;
import dev.lakestream.core.metadata.oxia.OxiaMetadataStore;
import dev.lakestream.core.metadata.oxia.OxiaMetadataStoreConfig;
import dev.lakestream.core.objectstore.s3.S3ObjectStore;
import dev.lakestream.core.objectstore.s3.S3ObjectStoreConfig;
import dev.lakestream.pulsar.LakestreamManagedLedgerFactory;
import dev.lakestream.testkit.BenchCommandLine;
import dev.lakestream.testkit.BenchmarksDoc;
import dev.lakestream.testkit.RemoteStores;
import dev.lakestream.testkit.S3ProxyServer;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.bookkeeper.mledger.ManagedLedger;
import org.apache.bookkeeper.mledger.ManagedLedgerFactoryConfig;
import org.apache.pulsar.metadata.api.MetadataStoreConfig;
import org.apache.pulsar.metadata.api.extended.MetadataStoreExtended;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The managed ledger over the core, against the core alone, in one run on real S3Proxy and Oxia servers: add
 * throughput (closed loop, 3 runs alternating core / ML, medians), add latency at a fixed rate, and catch-up reads
 * of one data set through the core reader and through managed cursors, each from a fresh instance (empty cache).
 * Every catch-up read is counted against the entries written (and acknowledged): one that reads fewer (or more)
 * fails the benchmark, with a LOST line after the report, and the doc is not written.
 *
 * <p>Usage: {@code ManagedLedgerBenchmark [--doc docs/benchmarks.md | --no-doc] [--command TEXT] [--quick]};
 * {@code --quick} shortens every phase and never writes the doc.
 */
public final class ManagedLedgerBenchmark {

    static final int STREAMS = 16;
    static final int ENTRY_BYTES = 1024;
    static final int IN_FLIGHT = 8192;
    static final int RATE = 1000;
    static final int REPS = 3;

    private final boolean quick;
    private final long startNanos = System.nanoTime();
    private final WriteLoad load = new WriteLoad(ENTRY_BYTES);
    private final MetadataStoreExtended broker;
    /** The catch-up reads that did not read back exactly what was written. */
    private final List<String> readFailures = new ArrayList<>();

    private S3ObjectStore objects;
    private OxiaMetadataStore metadata;

    private ManagedLedgerBenchmark(boolean quick) throws Exception {
        this.quick = quick;
        this.broker = MetadataStoreExtended.create(
                "memory:ml-bench", MetadataStoreConfig.builder().build());
    }

    public static void main(String[] args) throws Exception {
        Options options = BenchCommandLine.parseOrExit(new Options(), args);
        Path doc = options.doc;
        String command = options.command;
        boolean quick = options.quick;
        ManagedLedgerBenchmark benchmark = new ManagedLedgerBenchmark(quick);
        Results r = benchmark.run(command);
        String section = r.render();
        System.out.println(section);
        if (!benchmark.readFailures.isEmpty()) {
            // After the report, so that its figures are visible; the doc keeps its last passing run.
            benchmark.readFailures.forEach(System.out::println);
            System.out.println("[bench] FAILED: what was written was not read back; the doc was not written");
            System.exit(1);
        }
        if (doc != null && !quick) {
            BenchmarksDoc.writeSection(doc, Results.HEADING, section);
            System.out.println("[bench] wrote the '" + Results.HEADING + "' section of " + doc.toAbsolutePath());
        }
        System.exit(0);
    }

    /** The command line (the class comment's usage). */
    @Command(name = "ManagedLedgerBenchmark", showDefaultValues = true)
    static final class Options {
        @Option(names = "--doc", paramLabel = "FILE")
        Path doc = Path.of("docs/benchmarks.md");

        @Option(names = "--command", paramLabel = "TEXT")
        String command = "ManagedLedgerBenchmark";

        @Option(names = "--quick")
        boolean quick;

        @Option(
                names = {"-h", "--help"},
                usageHelp = true)
        boolean help;

        @Option(names = "--no-doc")
        void noDoc(boolean on) {
            if (on) {
                doc = null;
            }
        }
    }

    private Results run(String command) throws Exception {
        Results r = new Results();
        r.command = command;
        r.date = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'")
                .withZone(ZoneOffset.UTC)
                .format(Instant.now());
        r.machine = CoreBenchAccess.machineLine();
        r.loadBefore = CoreBenchAccess.loadAverage();
        try (RemoteStores remote = RemoteStores.start("ml-bench")) {
            S3ProxyServer s3proxy = remote.s3();
            objects = new S3ObjectStore(S3ObjectStoreConfig.builder()
                    .bucket(remote.bucket())
                    .prefix("bench")
                    .endpoint(s3proxy.endpoint())
                    .region(s3proxy.region())
                    .pathStyleAccess(true)
                    .credentials(s3proxy.accessKey(), s3proxy.secretKey())
                    .build());
            metadata = OxiaMetadataStore.open(
                    OxiaMetadataStoreConfig.of(remote.oxia().serviceAddress()));
            try {
                measure(r);
            } finally {
                metadata.close();
                objects.close();
            }
        }
        broker.close();
        r.loadAfter = CoreBenchAccess.loadAverage();
        r.minutes = (System.nanoTime() - startNanos) / 60e9;
        r.workload = String.format(
                Locale.ROOT,
                "%d streams (core) and %d managed ledgers (ML, one stream each), "
                        + "%d-byte entries in pooled direct buffers, round-robin from one thread; `LakestreamConfig.DEFAULT` "
                        + "and default `ManagedLedgerFactoryConfig` / `ManagedLedgerConfig`. Throughput: closed loop with at "
                        + "most %,d adds in flight, %.0f s warm-up then %.0f s measured, on new streams / ledgers each run, %d "
                        + "runs alternating core then ML (after one warm-up run of each). Latency: open loop at %,d adds/s, "
                        + "%.0f s warm-up then %.0f s measured, each add timed from its call to its completion. Catch-up: "
                        + "%d ledgers x %,d entries written through the ML, then %d runs alternating core then ML, each on "
                        + "a fresh `Lakestream` (and, for the ML, a fresh factory and a new cursor at the earliest entry), "
                        + "reading all ledgers at once in batches of up to %,d entries (core: also 1 MiB); every read "
                        + "counted against the entries written, a shortfall failing the benchmark (a LOST line, exit "
                        + "status 1, this section not written).",
                STREAMS,
                STREAMS,
                ENTRY_BYTES,
                IN_FLIGHT,
                warmup(),
                seconds(),
                REPS,
                RATE,
                warmup(),
                latencySeconds(),
                STREAMS,
                readEntries(),
                REPS,
                CatchUp.BATCH);
        return r;
    }

    private void measure(Results r) throws Exception {
        try (Lakestream log = Lakestream.open(objects, metadata, LakestreamConfig.DEFAULT)) {
            LakestreamManagedLedgerFactory factory = factory(log);
            log("warm-up");
            load.throughput(Appender.core(coreStreams(log, "warm")), IN_FLIGHT, 1, warmup());
            load.throughput(Appender.managedLedger(ledgers(factory, "warm")), IN_FLIGHT, 1, warmup());
            for (int rep = 1; rep <= REPS; rep++) {
                WriteLoad.Throughput c =
                        load.throughput(Appender.core(coreStreams(log, "core-" + rep)), IN_FLIGHT, warmup(), seconds());
                r.coreWrites.add(c);
                log(
                        "run %d core: %.1f MiB/s, %.0f entries/s; cpu %s",
                        rep, c.mibPerSecond(), c.entriesPerSecond(), c.cpu());
                WriteLoad.Throughput m = load.throughput(
                        Appender.managedLedger(ledgers(factory, "ml-" + rep)), IN_FLIGHT, warmup(), seconds());
                r.mlWrites.add(m);
                log(
                        "run %d ML:   %.1f MiB/s, %.0f entries/s; cpu %s",
                        rep, m.mibPerSecond(), m.entriesPerSecond(), m.cpu());
                if (rep == REPS) {
                    r.cpuDetail = "core run: " + c.cpu() + ". ML run: " + m.cpu() + ".";
                }
            }
            r.coreLatency = load.fixedRate(Appender.core(coreStreams(log, "lat")), RATE, warmup(), latencySeconds());
            log("latency core: p50 %.1f ms p99 %.1f ms", r.coreLatency.p50(), r.coreLatency.p99());
            r.mlLatency =
                    load.fixedRate(Appender.managedLedger(ledgers(factory, "lat")), RATE, warmup(), latencySeconds());
            log("latency ML:   p50 %.1f ms p99 %.1f ms", r.mlLatency.p50(), r.mlLatency.p99());

            load.fill(Appender.managedLedger(ledgers(factory, "read")), readEntries(), IN_FLIGHT);
            factory.shutdown();
            log("wrote the catch-up data set");
        }
        List<String> names = names("read");
        for (int rep = 1; rep <= REPS; rep++) {
            try (Lakestream fresh = Lakestream.open(objects, metadata, LakestreamConfig.DEFAULT)) {
                CatchUp.Read c = CatchUp.core(fresh, names);
                r.coreReads.add(c);
                checkRead("core catch-up read, run " + rep, c);
                log("read %d core: %.1f MiB/s, %,d entries in %.1f s", rep, c.mibPerSecond(), c.entries(), c.seconds());
            }
            try (Lakestream fresh = Lakestream.open(objects, metadata, LakestreamConfig.DEFAULT)) {
                LakestreamManagedLedgerFactory f = factory(fresh);
                CatchUp.Read m = CatchUp.managedLedger(f, names, "bench-" + rep);
                r.mlReads.add(m);
                checkRead("ML catch-up read, run " + rep, m);
                log("read %d ML:   %.1f MiB/s, %,d entries in %.1f s", rep, m.mibPerSecond(), m.entries(), m.seconds());
                f.shutdown();
            }
        }
    }

    /** Counts one catch-up read against the entries {@code load.fill} wrote (every one acknowledged, or it threw). */
    private void checkRead(String what, CatchUp.Read read) {
        long written = (long) STREAMS * readEntries();
        if (read.entries() < written) {
            readFailures.add(String.format(
                    Locale.ROOT,
                    "LOST: %,d written entries not read (%s: %,d written, %,d read)",
                    written - read.entries(),
                    what,
                    written,
                    read.entries()));
        } else if (read.entries() > written) {
            readFailures.add(String.format(
                    Locale.ROOT,
                    "EXTRA: %,d entries read more than written (%s: %,d written, %,d read)",
                    read.entries() - written,
                    what,
                    written,
                    read.entries()));
        }
    }

    private LakestreamManagedLedgerFactory factory(Lakestream log) {
        return new LakestreamManagedLedgerFactory(log, broker, new ManagedLedgerFactoryConfig());
    }

    private static List<StreamLog> coreStreams(Lakestream log, String prefix) {
        List<StreamLog> out = new ArrayList<>();
        for (String name : names(prefix)) {
            StreamInfo info = log.catalog().create("bench", name, Map.of()).join();
            StreamLog s = log.stream(info);
            s.fence().join();
            out.add(s);
        }
        return out;
    }

    private static List<ManagedLedger> ledgers(LakestreamManagedLedgerFactory factory, String prefix) throws Exception {
        List<ManagedLedger> out = new ArrayList<>();
        for (String name : names(prefix)) {
            out.add(factory.open(name));
        }
        return out;
    }

    private static List<String> names(String prefix) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < STREAMS; i++) {
            out.add("bench/" + prefix + "-" + i);
        }
        return out;
    }

    private double warmup() {
        return quick ? 1 : 3;
    }

    private double seconds() {
        return quick ? 3 : 10;
    }

    private double latencySeconds() {
        return quick ? 4 : 15;
    }

    private int readEntries() {
        return quick ? 1024 : 6144;
    }

    private void log(String format, Object... args) {
        System.out.println(String.format(Locale.ROOT, "[ml-bench %6.1fs] ", (System.nanoTime() - startNanos) / 1e9)
                + String.format(Locale.ROOT, format, args));
    }
}
