package dev.lakestream.core.bench;

import static dev.lakestream.core.bench.Figures.MIB;
import static dev.lakestream.core.bench.Figures.fmt;
import static dev.lakestream.core.bench.Figures.median;
import static dev.lakestream.core.bench.Figures.medianRun;
import static dev.lakestream.core.bench.Figures.ms;
import static dev.lakestream.core.bench.Figures.size;
import static dev.lakestream.core.bench.CatchUpRead.READ_MAX_BYTES;
import static dev.lakestream.core.bench.CatchUpRead.READ_MAX_ENTRIES;
import static dev.lakestream.core.bench.RawStoreLoad.RAW_GET_RANGE;

import dev.lakestream.core.Lakestream;
import dev.lakestream.core.LakestreamConfig;
import dev.lakestream.core.StreamLog;
import dev.lakestream.core.catalog.StreamInfo;
import dev.lakestream.core.log.LogEntry;
import dev.lakestream.core.metadata.MetadataStore;
import dev.lakestream.core.metadata.oxia.OxiaMetadataStore;
import dev.lakestream.core.metadata.oxia.OxiaMetadataStoreConfig;
import dev.lakestream.core.objectstore.ObjectStore;
import dev.lakestream.core.objectstore.s3.S3ObjectStore;
import dev.lakestream.core.objectstore.s3.S3ObjectStoreConfig;
import dev.lakestream.core.wal.ReaderConfig;
import dev.lakestream.core.wal.WalWriterConfig;
import dev.lakestream.testkit.OxiaServer;
import dev.lakestream.testkit.S3ProxyServer;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.concurrent.FastThreadLocalThread;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.ToDoubleFunction;
import java.util.jar.JarFile;
import java.util.stream.Collectors;

/**
 * The core log benchmark: the WAL writer and reader of {@link Lakestream} against a real S3Proxy and a real
 * Oxia server, which it starts itself through the test kit, measured side by side with raw object-store PUTs.
 *
 * <ol>
 *   <li>Raw PUT throughput of the {@link S3ObjectStore}: objects of the writer's {@code maxObjectSize}, with as
 *       many in flight as the writer's append window holds (outstanding appends x entry size / object size),
 *       and again with as many as the writer actually had in flight.</li>
 *   <li>Writer append throughput: many streams, 1 KiB entries, a bounded window of appends in flight.</li>
 *   <li>Append latency at a moderate fixed rate with the default flush delay.</li>
 *   <li>PUTs per GiB and metadata writes per WAL object, counted by decorators around both stores.</li>
 *   <li>Catch-up read throughput: a fresh instance (empty cache) reads every stream of a data set written
 *       just before from offset 0, checking every entry's bytes; side by side with raw ranged GETs.</li>
 *   <li>The latency run again with every object put and get delayed (lognormal, p50 30 ms, p99 120 ms),
 *       compared with flushDelay + PUT p99 + index-commit p99 measured in the same run.</li>
 * </ol>
 * Throughput figures (1, 2, 5) are repeated and the report quotes medians. Raw PUT and writer runs
 * alternate, so drift in the machine's load hits both alike.
 *
 * <p>Usage: {@code LogBenchmark [--doc docs/benchmarks.md | --no-doc] [--command TEXT] [--quick] [--reps N]
 * [--streams N] [--entry-bytes N] [--outstanding N] [--writer-seconds N] [--raw-seconds N] [--rate N]
 * [--latency-seconds N] [--catchup-mib N]}. It always prints the report; with {@code --doc} (and not
 * {@code --quick}) it also writes it as the {@code ## Core log} section of that file, replacing that section
 * and keeping the others. {@code bin/bench-core} compiles and runs it.
 */
public final class LogBenchmark {

    private static final String SECTION = "## Core log";
    /** Other processes busier than this (cores) during a run make it disturbed for the verdict. */
    private static final double DISTURBED_CORES = 0.25;

    // ------------------------------------------------------------------------------------------ state

    private final BenchOptions o;
    private final LakestreamConfig config = LakestreamConfig.DEFAULT;
    private final CpuMeter cpu = new CpuMeter();
    private final ProgressLog progress = new ProgressLog();
    private BenchContext ctx;

    private LogBenchmark(BenchOptions o) {
        this.o = o;
    }

    public static void main(String[] args) {
        // The Oxia client and the SDK leave non-daemon threads behind: exit explicitly either way (the servers
        // are stopped by then).
        try {
            BenchOptions o = BenchOptions.parse(args);
            String report = new LogBenchmark(o).run();
            System.out.println();
            System.out.println(report);
            if (o.doc != null && o.quick) {
                System.out.println("[bench] quick mode: " + o.doc + " left as it was");
            } else if (o.doc != null) {
                writeSection(o.doc, report);
                System.out.println("[bench] wrote the '" + SECTION + "' section of " + o.doc.toAbsolutePath());
            }
            System.exit(0);
        } catch (Throwable t) {
            System.err.println("[bench] failed:");
            t.printStackTrace();
            System.exit(1);
        }
    }

    private String run() throws Exception {
        Machine machine = Machine.describe();
        String loadBefore = Machine.loadAverage();
        Instant date = Instant.now();
        WalWriterConfig w = config.writer();
        int maxObject = Math.toIntExact(w.maxObjectBytes());
        int rawConcurrency = (int) Math.max(1, ((long) o.outstanding * o.entryBytes) / w.maxObjectBytes());
        log("machine: %d cores, %s, %s, %s; load %s", machine.cores(), machine.cpu(), machine.memory(),
                machine.jdk(), loadBefore);

        try (S3ProxyServer s3proxy = S3ProxyServer.start();
             OxiaServer oxia = OxiaServer.create("log-bench").start()) {
            log("S3Proxy at %s, Oxia at %s", s3proxy.endpoint(), oxia.serviceAddress());
            ObjectStore s3 = new S3ObjectStore(S3ObjectStoreConfig.builder()
                    .bucket(s3proxy.createBucket())
                    .prefix("bench")
                    .endpoint(s3proxy.endpoint())
                    .region(s3proxy.region())
                    .pathStyleAccess(true)
                    .credentials(s3proxy.accessKey(), s3proxy.secretKey())
                    .build());
            MetadataStore oxiaStore = OxiaMetadataStore.open(OxiaMetadataStoreConfig.of(oxia.serviceAddress()));
            ctx = new BenchContext(o, config, cpu, progress, s3, oxiaStore);
            try {
                return measure(machine, loadBefore, date, maxObject, rawConcurrency);
            } finally {
                oxiaStore.close();
                s3.close();
            }
        }
    }

    private String measure(Machine machine, String loadBefore, Instant date, int maxObject, int rawConcurrency)
            throws Exception {
        WriterLoad writer = new WriterLoad(ctx);
        RawStoreLoad raw = new RawStoreLoad(ctx);
        CatchUpRead catchUp = new CatchUpRead(ctx);
        List<RawRun> raws = new ArrayList<>();
        List<RawRun> rawsAtWriter = new ArrayList<>();
        List<WriterRun> writers = new ArrayList<>();
        RawRun rawObserved = null;
        LatencyRun plain;
        LatencyRun injected;
        Histogram injectedLarge = new Histogram();
        Histogram injectedInRun;
        List<ReadRun> reads = new ArrayList<>();
        List<RawRun> rawGets = new ArrayList<>();
        WrittenStreams backlog;

        try (Lakestream log = Lakestream.open(ctx.objects, ctx.metadata, config)) {
            // Warm-up: JIT of all three processes, connection pools, Oxia's first sessions and subscriptions.
            log("warm-up");
            List<StreamLog> warm = streams(log, "warmup");
            writer.saturating(warm, new long[warm.size()], o.writerWarmupSeconds, Math.max(2, o.writerWarmupSeconds));
            raw.put(maxObject, rawConcurrency, "warmup", o.rawWarmupSeconds, Math.max(1, o.rawWarmupSeconds));

            // Writer and raw PUT runs alternate, so that drift in the machine's load hits both alike.
            for (int rep = 1; rep <= o.reps; rep++) {
                List<StreamLog> streams = streams(log, "run" + rep);
                long[] seqs = new long[streams.size()];
                WriterRun wr = writer.saturating(streams, seqs, o.writerWarmupSeconds, o.writerSeconds);
                writers.add(wr);
                log("run %d writer: %.1f MiB/s, %.0f entries/s, %d PUTs (mean %.2f MiB, %.1f in flight), "
                        + "append p50 %.0f ms p99 %.0f ms, failures %d; cpu %s", rep, wr.mibPerSecond(),
                        wr.entriesPerSecond(), wr.puts(), wr.meanObjectBytes() / MIB, wr.meanInFlightPuts(),
                        ms(wr.appendLatency(), 0.5), ms(wr.appendLatency(), 0.99), wr.failures(),
                        wr.cpu().summary(machine.cores()));
                RawRun put = raw.put(maxObject, rawConcurrency, "run" + rep, o.rawWarmupSeconds, o.rawSeconds);
                raws.add(put);
                log("run %d raw PUT: %.1f MiB/s (%d x %d MiB, %d in flight, p50 %.0f ms p99 %.0f ms); cpu %s", rep,
                        put.mibPerSecond(), put.puts(), maxObject >> 20, rawConcurrency, put.p50Millis(),
                        put.p99Millis(), put.cpu().summary(machine.cores()));
                // Also at the concurrency the writer actually had (its mean PUTs in flight, rounded).
                int writerConcurrency = (int) Math.max(1, Math.round(wr.meanInFlightPuts()));
                RawRun same = writerConcurrency == rawConcurrency ? put
                        : raw.put(maxObject, writerConcurrency, "run" + rep + "-w", o.rawWarmupSeconds, o.rawSeconds);
                rawsAtWriter.add(same);
                log("run %d raw PUT at the writer's concurrency: %.1f MiB/s (%d in flight, p50 %.0f ms p99 %.0f ms)",
                        rep, same.mibPerSecond(), same.concurrency(), same.p50Millis(), same.p99Millis());
            }
            // Raw PUTs at the object size the writer actually produced, when that differs from the maximum.
            double observed = median(writers, WriterRun::meanObjectBytes);
            if (Math.abs(observed - maxObject) > 0.05 * maxObject) {
                int size = (int) Math.round(observed);
                int concurrency = (int) Math.max(1, Math.round(median(writers, WriterRun::meanInFlightPuts)));
                rawObserved = raw.put(size, concurrency, "observed", o.rawWarmupSeconds, o.rawSeconds);
                log("raw PUT at the observed size %.2f MiB, %d in flight: %.1f MiB/s", size / MIB, concurrency,
                        rawObserved.mibPerSecond());
            }

            log("fixed-rate latency, %d appends/s", o.rate);
            plain = writer.fixedRate(ctx.objectsI, streams(log, "latency"), o.latencyWarmupSeconds,
                    o.latencySeconds);
            log("latency: append p50 %.1f ms p99 %.1f ms; PUT p99 %.1f ms; commit p99 %.1f ms",
                    ms(plain.append(), 0.5), ms(plain.append(), 0.99), ms(plain.put(), 0.99), ms(plain.commit(), 0.99));

            backlog = catchUp.fill(log, ctx.createStreams(log, "backlog"));
            log("catch-up data: %d streams x %,d entries, %,d WAL objects, %,d index records", o.streams,
                    backlog.ends()[0], backlog.objects(), backlog.indexRecords());
        }

        // Warm-up of the read path (JIT), not measured: one whole catch-up read of the same data set.
        ReadRun warmRead = catchUp.read(backlog);
        log("catch-up warm-up read: %.1f MiB/s (not counted)", warmRead.mibPerSecond());
        String rawPrefix = "raw/run1/";
        for (int rep = 1; rep <= o.reps; rep++) {
            ReadRun r = catchUp.read(backlog);
            reads.add(r);
            log("run %d catch-up read: %.1f MiB/s, %.0f entries/s, %d GETs + %d ranged GETs, %.1f MiB fetched, "
                    + "%d mismatches; ranged GET p50 %.1f ms p99 %.1f ms, %.1f in flight; index scan p50 %.1f ms "
                    + "p99 %.1f ms; cpu %s; threads %s", rep, r.mibPerSecond(), r.entriesPerSecond(), r.gets(),
                    r.rangeGets(), r.bytesFetched() / MIB, r.mismatches(), ms(r.rangeGetLatency(), 0.5),
                    ms(r.rangeGetLatency(), 0.99), r.meanInFlightGets(), ms(r.scanLatency(), 0.5),
                    ms(r.scanLatency(), 0.99), r.cpu().summary(machine.cores()), r.cpu().topThreads(6));
            RawRun g = raw.rangedGet(rawPrefix, raws.get(0).keys(), maxObject, RAW_GET_RANGE, ctx.s3Concurrency(),
                    o.rawWarmupSeconds, o.rawGetSeconds);
            rawGets.add(g);
            log("run %d raw ranged GET: %.1f MiB/s (%d x %d KiB, %d in flight, p50 %.1f ms p99 %.1f ms); cpu %s", rep,
                    g.mibPerSecond(), g.puts(), RAW_GET_RANGE >> 10, g.concurrency(), g.p50Millis(), g.p99Millis(),
                    g.cpu().summary(machine.cores()));
        }

        log("fixed-rate latency with injected object-store latency (p50 %.0f ms, p99 %.0f ms)", o.injectP50Millis,
                o.injectP99Millis);
        LatencyInjector probe = new LatencyInjector(ctx.s3, o.injectP50Millis, o.injectP99Millis, 7);
        for (int i = 0; i < 1_000_000; i++) {
            injectedLarge.record(probe.drawNanos());
        }
        probe.close();
        try (LatencyInjector injector = new LatencyInjector(ctx.s3, o.injectP50Millis, o.injectP99Millis, 42)) {
            Instrumented slowI = Instrumented.objectStore(injector.asObjectStore());
            try (Lakestream slow = Lakestream.open(slowI.asObjectStore(), ctx.metadata, config)) {
                injected = writer.fixedRate(slowI, streams(slow, "injected"), o.latencyWarmupSeconds,
                        o.latencySeconds);
            }
            injectedInRun = injector.injected;
        }
        log("injected: append p50 %.1f ms p99 %.1f ms; PUT p99 %.1f ms; commit p99 %.1f ms",
                ms(injected.append(), 0.5), ms(injected.append(), 0.99), ms(injected.put(), 0.99),
                ms(injected.commit(), 0.99));

        String loadAfter = Machine.loadAverage();
        double minutes = progress.minutes();
        return report(machine, loadBefore, loadAfter, date, minutes, maxObject, rawConcurrency, raws,
                rawsAtWriter, writers, rawObserved, plain, injected, injectedLarge, injectedInRun, backlog, reads,
                rawGets);
    }

    /** {@code o.streams} new streams, fenced for {@code log}, and its handles to them. */
    private List<StreamLog> streams(Lakestream log, String prefix) {
        return BenchContext.handles(log, ctx.createStreams(log, prefix));
    }

    // ------------------------------------------------------------------------------------------ report

    private String report(Machine m, String loadBefore, String loadAfter, Instant date, double minutes, int maxObject,
                          int rawConcurrency, List<RawRun> raws, List<RawRun> rawsAtWriter,
                          List<WriterRun> writers,
                          RawRun rawObserved, LatencyRun plain, LatencyRun injected, Histogram injectedLarge,
                          Histogram injectedInRun, WrittenStreams backlog, List<ReadRun> reads, List<RawRun> rawGets) {
        WalWriterConfig w = config.writer();
        ReaderConfig r = config.reader();
        StringBuilder b = new StringBuilder();
        b.append(SECTION).append("\n\n");
        b.append("Written by `dev.lakestream.core.bench.LogBenchmark` (`lakestream-core/src/bench/java`), which starts "
                + "its own S3Proxy and Oxia server through the test kit; the benchmark JVM, S3Proxy and Oxia all share "
                + "the machine below. Figures are from one run of the command; do not edit them by hand, run it again.\n\n");
        b.append("- **Command:** `").append(o.command).append("`").append(o.quick ? " (quick mode: short, 1 run)" : "")
                .append("\n");
        b.append("- **Date:** ").append(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'").withZone(ZoneOffset.UTC)
                .format(date)).append(String.format(Locale.ROOT, " (the whole benchmark took %.1f min)", minutes))
                .append("\n");
        b.append("- **Machine:** ").append(m.cores()).append(" cores (`nproc`), ").append(m.cpu()).append(", ")
                .append(m.memory()).append(" RAM; ").append(m.jdk()).append("; ").append(m.os()).append("\n");
        b.append("- **Load average (1/5/15 min):** ").append(loadBefore).append(" before, ").append(loadAfter)
                .append(" after (other work on the machine, if any, is in these figures)\n");
        b.append("- **Servers:** S3Proxy ").append(s3ProxyVersion()).append(" (filesystem-nio2 backend on local disk, "
                + "its own JVM as the test kit starts it: `-Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1`); Oxia "
                + "server from `tools/oxia-server` (1 shard, WAL not fsynced); both on 127.0.0.1\n");
        b.append(String.format(Locale.ROOT, "- **Workload:** %d streams, %d-byte entries of 1 record in pooled direct "
                        + "buffers, round-robin from one thread, at most %d appends in flight (%.0f MiB); each stream "
                        + "fenced by the writer as an owner does. Writer and reader at their defaults: maxObjectSize %s, flushDelay %d ms, "
                        + "maxPendingBytes %s; reader cache %s, wholeObjectMaxSize %s, prefetch %d records; S3 "
                        + "store maxConcurrentRequests %d\n",
                o.streams, o.entryBytes, o.outstanding, o.outstanding * (double) o.entryBytes / MIB,
                size(w.maxObjectBytes()), w.flushDelay().toMillis(), size(w.maxPendingBytes()), size(r.cacheBytes()),
                size(r.wholeObjectMaxBytes()), r.prefetchRecords(), ctx.s3Concurrency()));
        b.append(String.format(Locale.ROOT, "- **Durations:** %d s warm-up (writer and raw PUTs) first; per throughput "
                        + "run %d s writer (after %d s ramp-up), then %d s raw PUT (after %d s); %d runs, alternating; "
                        + "latency runs %d s each (after %d s); catch-up: a %d MiB data set read once to warm up, then "
                        + "%d times measured, each followed by %d s of raw ranged GETs (after %d s)\n\n",
                o.writerWarmupSeconds, o.writerSeconds, o.writerWarmupSeconds, o.rawSeconds, o.rawWarmupSeconds,
                o.reps, o.latencySeconds, o.latencyWarmupSeconds, o.catchUpMib, o.reps, o.rawGetSeconds,
                o.rawWarmupSeconds));

        // Throughput.
        b.append("### Throughput\n\n");
        b.append("MiB = 2^20 bytes. Writer figures count payload bytes of appends completed (durable in S3Proxy and "
                + "committed in Oxia) during the window.\n\n");
        b.append("| | ");
        for (int i = 1; i <= writers.size(); i++) {
            b.append("run ").append(i).append(" | ");
        }
        b.append("median |\n|---|");
        b.append("---|".repeat(writers.size() + 1)).append("\n");
        row(b, "Raw PUT, " + size(maxObject) + " objects, " + rawConcurrency + " in flight (MiB/s)", raws,
                RawRun::mibPerSecond, "%.1f");
        b.append("| Raw PUT, ").append(size(maxObject)).append(" objects, as many in flight as the writer had "
                + "(MiB/s) | ");
        for (RawRun run : rawsAtWriter) {
            b.append(fmt("%.1f", run.mibPerSecond())).append(" (").append(run.concurrency()).append(") | ");
        }
        b.append("**").append(fmt("%.1f", median(rawsAtWriter, RawRun::mibPerSecond))).append("** |\n");
        row(b, "Writer append, " + o.streams + " streams (MiB/s)", writers, WriterRun::mibPerSecond, "%.1f");
        row(b, "Writer append (entries/s)", writers, WriterRun::entriesPerSecond, "%,.0f");
        row(b, "WAL object PUTs in flight during writer runs (mean)", writers, WriterRun::meanInFlightPuts, "%.1f");
        row(b, "Other processes' CPU during the writer run (cores)", writers, x -> x.cpu().others(), "%.2f");
        row(b, "Other processes' CPU during the raw PUT run, " + rawConcurrency + " in flight (cores)", raws,
                x -> x.cpu().others(), "%.2f");
        List<Double> ratios = new ArrayList<>();
        List<Double> ratiosSame = new ArrayList<>();
        for (int i = 0; i < writers.size(); i++) {
            ratios.add(writers.get(i).mibPerSecond() / raws.get(i).mibPerSecond());
            ratiosSame.add(writers.get(i).mibPerSecond() / rawsAtWriter.get(i).mibPerSecond());
        }
        row(b, "Writer / raw PUT (" + rawConcurrency + " in flight)", ratios, x -> x, "%.2f");
        row(b, "Writer / raw PUT (writer's concurrency)", ratiosSame, x -> x, "%.2f");
        row(b, "Catch-up read, fresh instance, " + o.streams + " streams (MiB/s)", reads, ReadRun::mibPerSecond,
                "%.1f");
        row(b, "Catch-up read (entries/s)", reads, ReadRun::entriesPerSecond, "%,.0f");
        row(b, "Raw ranged GET, " + size(RAW_GET_RANGE) + " ranges, " + ctx.s3Concurrency() + " in flight (MiB/s)",
                rawGets, RawRun::mibPerSecond, "%.1f");
        List<Double> readRatios = new ArrayList<>();
        for (int i = 0; i < Math.min(reads.size(), rawGets.size()); i++) {
            readRatios.add(reads.get(i).mibPerSecond() / rawGets.get(i).mibPerSecond());
        }
        row(b, "Catch-up read / raw ranged GET", readRatios, x -> x, "%.2f");
        row(b, "Other processes' CPU during the catch-up read (cores)", reads, x -> x.cpu().others(), "%.2f");
        row(b, "Other processes' CPU during the raw ranged GET run (cores)", rawGets, x -> x.cpu().others(), "%.2f");
        b.append("\n");

        double rawMedian = median(raws, RawRun::mibPerSecond);
        double writerMedian = median(writers, WriterRun::mibPerSecond);
        double ratioMedian = median(ratios, x -> x);
        double ratioSameMedian = median(ratiosSame, x -> x);
        // A run whose pair (writer run and the raw PUT run after it) shared the machine with other work is noise.
        List<Double> clean = new ArrayList<>();
        List<Integer> cleanRuns = new ArrayList<>();
        for (int i = 0; i < writers.size(); i++) {
            if (writers.get(i).cpu().others() < DISTURBED_CORES && raws.get(i).cpu().others() < DISTURBED_CORES) {
                clean.add(ratios.get(i));
                cleanRuns.add(i + 1);
            }
        }
        String verdict;
        if (clean.isEmpty()) {
            verdict = "inconclusive** (other processes used " + fmt("%.2f", DISTURBED_CORES)
                    + " cores or more during every run; see the rows above)";
        } else {
            double cleanMedian = median(clean, x -> x);
            verdict = (cleanMedian >= 0.8 ? "met" : "not met") + "** on the runs the machine had to itself (other "
                    + "processes below " + fmt("%.2f", DISTURBED_CORES) + " cores during both the writer and the raw "
                    + "PUT run: run " + cleanRuns.stream().map(String::valueOf).collect(Collectors.joining(", "))
                    + "): writer/raw ratio " + clean.stream().map(x -> fmt("%.2f", x)).collect(Collectors.joining(", "))
                    + (clean.size() > 1 ? ", median " + fmt("%.2f", cleanMedian) : "");
        }
        b.append(String.format(Locale.ROOT, "**Target (writer within 80%% of raw PUT throughput, raw PUTs with %d in "
                        + "flight: the writer's append window of %d x %s = %.0f MiB holds %d objects): %s. Over all "
                        + "runs: median ratio %.2f (median writer %.1f MiB/s, median raw PUT %.1f MiB/s); against raw "
                        + "PUTs with as many in flight as the writer actually had, median ratio %.2f.\n\n",
                rawConcurrency, o.outstanding, size(o.entryBytes), o.outstanding * (double) o.entryBytes / MIB,
                rawConcurrency, verdict, ratioMedian, writerMedian, rawMedian, ratioSameMedian));

        WriterRun mw = medianRun(writers, WriterRun::mibPerSecond);
        b.append(String.format(Locale.ROOT, "Writer details (median run): %,d WAL objects PUT, mean %.2f MiB (%d of "
                        + "them reached maxObjectSize; the rest were flushed by the %d ms timer); PUTs in flight "
                        + "%.1f on average, %d at most (the raw PUT runs keep %d in flight); PUT latency p50 %.0f ms, "
                        + "p99 %.0f ms (raw PUT runs: p50 %.0f ms, p99 %.0f ms); index commit (Oxia sequence-key put) "
                        + "p50 %.1f ms, p99 %.1f ms; append latency at saturation p50 %.0f ms, p99 %.0f ms; %d "
                        + "appends failed.\n\n",
                mw.puts(), mw.meanObjectBytes() / MIB, mw.fullObjects(), w.flushDelay().toMillis(),
                mw.meanInFlightPuts(), mw.maxInFlightPuts(), rawConcurrency, ms(mw.putLatency(), 0.5),
                ms(mw.putLatency(), 0.99), median(raws, RawRun::p50Millis), median(raws, RawRun::p99Millis),
                ms(mw.commitLatency(), 0.5), ms(mw.commitLatency(), 0.99), ms(mw.appendLatency(), 0.5),
                ms(mw.appendLatency(), 0.99), writers.stream().mapToLong(WriterRun::failures).sum()));
        if (rawObserved != null) {
            b.append(String.format(Locale.ROOT, "Raw PUT at the object size the writer produced (%.2f MiB, %d in "
                            + "flight, the writer's mean): %.1f MiB/s.\n\n", rawObserved.objectBytes() / MIB,
                    rawObserved.concurrency(), rawObserved.mibPerSecond()));
        } else {
            b.append(String.format(Locale.ROOT, "The writer's objects were %.2f MiB on average, within 5%% of "
                            + "maxObjectSize, so the raw PUT figure above is also the one at the observed size.\n\n",
                    mw.meanObjectBytes() / MIB));
        }
        ReadRun mr = medianRun(reads, ReadRun::mibPerSecond);
        b.append(String.format(Locale.ROOT, "Catch-up details: the data set is %d streams x %,d entries (%.0f MiB) in "
                        + "%,d WAL objects and %,d index records, written at full speed by the writer just before; each "
                        + "run opens a fresh `Lakestream` (empty cache) on the same stores and reads every stream from "
                        + "offset 0 to its end, all streams at once, each stream sequentially with reads of up to %d "
                        + "entries / %s, checking every entry's offset and bytes. Median run: %,d entries in %.1f s, "
                        + "%d mismatches; %,d whole-object GETs and %,d ranged GETs fetching %.0f MiB (%.2f bytes "
                        + "fetched per payload byte); ranged GETs took p50 %.0f ms, p99 %.0f ms from the call (waiting "
                        + "for one of the store's %d request slots included), %.0f in flight on average; %,d index "
                        + "range scans returned %,d index records (%.1f per record of the data set), p50 %.1f ms, p99 "
                        + "%.1f ms. S3Proxy serves from the OS page cache here (the data was just written).\n\n",
                o.streams, backlog.ends()[0], Arrays.stream(backlog.ends()).sum() * (double) o.entryBytes / MIB,
                backlog.objects(), backlog.indexRecords(), READ_MAX_ENTRIES, size(READ_MAX_BYTES), mr.entries(),
                mr.seconds(), mr.mismatches(), mr.gets(), mr.rangeGets(), mr.bytesFetched() / MIB,
                mr.bytesFetched() / (double) mr.bytes(), ms(mr.rangeGetLatency(), 0.5), ms(mr.rangeGetLatency(), 0.99),
                ctx.s3Concurrency(), mr.meanInFlightGets(), mr.indexScans(), mr.indexRecordsScanned(),
                mr.indexRecordsScanned() / (double) Math.max(1, backlog.indexRecords()), ms(mr.scanLatency(), 0.5),
                ms(mr.scanLatency(), 0.99)));

        // Latency.
        b.append("### Append latency at a fixed rate\n\n");
        b.append(String.format(Locale.ROOT, "Open loop at %,d appends/s (%.1f MiB/s) over the %d streams, latency per "
                        + "append from the call to its completion, %d s measured. The second column delays every object "
                        + "put and get by a lognormal random time before it is sent. PUT and index-commit latencies are "
                        + "timed by the counting decorators in the same run.\n\n",
                o.rate, o.rate * (double) o.entryBytes / MIB, o.streams, o.latencySeconds));
        b.append("| | no injected latency | injected (p50 ").append(fmt("%.0f", o.injectP50Millis)).append(" ms, p99 ")
                .append(fmt("%.0f", o.injectP99Millis)).append(" ms) |\n|---|---|---|\n");
        b.append("| appends measured (achieved rate) | ").append(fmt("%,d", plain.append().count())).append(" (")
                .append(fmt("%,.0f", plain.achievedRate())).append("/s) | ").append(fmt("%,d", injected.append().count()))
                .append(" (").append(fmt("%,.0f", injected.achievedRate())).append("/s) |\n");
        latencyRow(b, "append p50", plain.append(), injected.append(), 0.50);
        latencyRow(b, "append p90", plain.append(), injected.append(), 0.90);
        latencyRow(b, "append p99", plain.append(), injected.append(), 0.99);
        latencyRow(b, "append p99.9", plain.append(), injected.append(), 0.999);
        b.append("| append max | ").append(fmt("%.1f ms", plain.append().max() / 1e6)).append(" | ")
                .append(fmt("%.1f ms", injected.append().max() / 1e6)).append(" |\n");
        b.append("| PUT p50 / p99 (PUTs) | ").append(pair(plain.put())).append(" | ").append(pair(injected.put()))
                .append(" |\n");
        b.append("| index commit p50 / p99 (commits) | ").append(pair(plain.commit())).append(" | ")
                .append(pair(injected.commit())).append(" |\n");
        double flush = w.flushDelay().toNanos() / 1e6;
        double sumPlain = flush + ms(plain.put(), 0.99) + ms(plain.commit(), 0.99);
        double sumInjected = flush + ms(injected.put(), 0.99) + ms(injected.commit(), 0.99);
        b.append("| flushDelay + PUT p99 + commit p99 | ").append(fmt("%.1f ms", sumPlain)).append(" | ")
                .append(fmt("%.1f ms", sumInjected)).append(" |\n");
        b.append("| append p99 / that sum | ").append(fmt("%.2f", ms(plain.append(), 0.99) / sumPlain)).append(" | ")
                .append(fmt("%.2f", ms(injected.append(), 0.99) / sumInjected)).append(" |\n");
        b.append("| appends failed | ").append(plain.failures()).append(" | ").append(injected.failures())
                .append(" |\n\n");
        b.append(String.format(Locale.ROOT, "Injected delay, lognormal with median %.0f ms and sigma ln(%.0f/%.0f)/2.326: "
                        + "1,000,000 draws give p50 %.1f ms, p90 %.1f ms, p99 %.1f ms, p99.9 %.1f ms; the %,d delays "
                        + "drawn in the run (every put and get, warm-up included) give p50 %.1f ms, p99 %.1f ms.\n\n",
                o.injectP50Millis, o.injectP99Millis, o.injectP50Millis, ms(injectedLarge, 0.5),
                ms(injectedLarge, 0.9), ms(injectedLarge, 0.99), ms(injectedLarge, 0.999), injectedInRun.count(),
                ms(injectedInRun, 0.5), ms(injectedInRun, 0.99)));

        // Cost.
        b.append("### Requests\n\n");
        b.append("Counted by decorators around both stores during the measured windows. Metadata writes are every "
                + "put and delete; in these runs they are all index commits (one sequence-key put per stream per "
                + "WAL object).\n\n");
        b.append("| | saturation (median run) | fixed rate | fixed rate, injected latency |\n|---|---|---|---|\n");
        b.append("| WAL object PUTs per GiB of payload | ").append(fmt("%,.0f", mw.putsPerGib())).append(" | ")
                .append(fmt("%,.0f", plain.putsPerGib())).append(" | ").append(fmt("%,.0f", injected.putsPerGib()))
                .append(" |\n");
        b.append("| metadata writes per WAL object | ").append(fmt("%.1f", mw.metadataWritesPerObject())).append(" | ")
                .append(fmt("%.1f", plain.metadataWritesPerObject())).append(" | ")
                .append(fmt("%.1f", injected.metadataWritesPerObject())).append(" |\n");
        b.append("| mean WAL object size | ").append(fmt("%.2f MiB", mw.meanObjectBytes() / MIB)).append(" | ")
                .append(fmt("%.0f KiB", plain.payloadBytes() / 1024.0 / Math.max(1, plain.puts()))).append(" | ")
                .append(fmt("%.0f KiB", injected.payloadBytes() / 1024.0 / Math.max(1, injected.puts())))
                .append(" |\n\n");

        // CPU.
        b.append("### CPU\n\n");
        b.append("Busy cores (1.00 = one core fully used) averaged over each measured window, from the processes' CPU "
                + "time; medians over the runs for the throughput phases. \"Other processes\" is the rest of the "
                + "machine's busy time (`/proc/stat`): work that was not ours. GC pauses are the bench JVM's "
                + "stop-the-world time per second.\n\n");
        b.append("| phase | bench JVM | S3Proxy | Oxia | total (of ").append(m.cores())
                .append(") | other processes | bench GC pauses (ms/s) |\n").append("|---|---|---|---|---|---|---|\n");
        cpuRow(b, "raw PUT", raws.stream().map(RawRun::cpu).toList());
        cpuRow(b, "writer append", writers.stream().map(WriterRun::cpu).toList());
        cpuRow(b, "catch-up read", reads.stream().map(ReadRun::cpu).toList());
        cpuRow(b, "raw ranged GET", rawGets.stream().map(RawRun::cpu).toList());
        cpuRow(b, "fixed-rate latency", List.of(plain.cpu()));
        cpuRow(b, "fixed-rate latency, injected", List.of(injected.cpu()));
        b.append("\nBusiest threads of the bench JVM (busy cores; numbers in names folded to #) during the median "
                + "writer run: ").append(mw.cpu().topThreads(8)).append("; during the median catch-up read: ")
                .append(mr.cpu().topThreads(8)).append(".\n\n");

        // Findings stated from the numbers only.
        b.append("### Reading the figures\n\n");
        b.append("Statements generated from this run's numbers (no interpretation beyond them):\n\n");
        double writerCpu = median(writers, x -> x.cpu().total());
        double writerOthers = median(writers, x -> x.cpu().others());
        double rawCpu = median(raws, x -> x.cpu().total());
        b.append(String.format(Locale.ROOT, "- Writer runs: the benchmark JVM, S3Proxy and Oxia kept %.2f of %d cores "
                        + "busy and other processes %.2f (raw PUT runs: %.2f)%s\n", writerCpu, m.cores(), writerOthers,
                rawCpu, writerCpu + writerOthers >= 0.9 * m.cores()
                        ? ": the machine's CPU was the limit, so the writer figure measures how much CPU the write "
                        + "path needs per byte as much as the stores' speed."
                        : "; the CPU was not saturated."));
        b.append(String.format(Locale.ROOT, "- CPU per 100 MiB/s: S3Proxy %.2f cores for raw PUTs, %.2f for writer "
                        + "appends; the benchmark JVM %.2f for raw PUTs, %.2f for writer appends (this includes "
                        + "generating the appends).\n",
                perHundred(raws, x -> x.cpu().processes().get(CpuMeter.S3PROXY), RawRun::mibPerSecond),
                perHundred(writers, x -> x.cpu().processes().get(CpuMeter.S3PROXY), WriterRun::mibPerSecond),
                perHundred(raws, x -> x.cpu().processes().get(CpuMeter.BENCH), RawRun::mibPerSecond),
                perHundred(writers, x -> x.cpu().processes().get(CpuMeter.BENCH), WriterRun::mibPerSecond)));
        b.append(String.format(Locale.ROOT, "- In the writer runs the benchmark JVM's GC threads used %.2f cores and "
                        + "its JIT compiler threads %.2f (raw PUT runs: %.2f and %.2f); GC pauses took %.0f ms per "
                        + "second (raw PUT runs: %.0f).\n",
                median(writers, x -> x.cpu().threadGroups().getOrDefault(CpuMeter.JVM_GC, 0.0)),
                median(writers, x -> x.cpu().threadGroups().getOrDefault(CpuMeter.JVM_JIT, 0.0)),
                median(raws, x -> x.cpu().threadGroups().getOrDefault(CpuMeter.JVM_GC, 0.0)),
                median(raws, x -> x.cpu().threadGroups().getOrDefault(CpuMeter.JVM_JIT, 0.0)),
                median(writers, x -> x.cpu().gcPauseMillisPerSecond()),
                median(raws, x -> x.cpu().gcPauseMillisPerSecond())));
        b.append(String.format(Locale.ROOT, "- Writer PUTs took p50 %.0f ms against %.0f ms for raw PUTs with %d in "
                        + "flight, while the writer had %.1f in flight on average.\n", ms(mw.putLatency(), 0.5),
                median(raws, RawRun::p50Millis), rawConcurrency, mw.meanInFlightPuts()));
        b.append(String.format(Locale.ROOT, "- Catch-up reads: %.2f of the raw ranged-GET rate at %d in flight; they "
                        + "issued %.1f GETs and fetched %.2f bytes per payload byte (raw ranged GETs: %.1f GETs per MiB, "
                        + "1.00 byte per byte); the benchmark JVM's GC threads used %.2f cores and GC pauses took %.0f "
                        + "ms/s (raw ranged GET runs: %.2f cores, %.0f ms/s).\n", median(readRatios, x -> x),
                ctx.s3Concurrency(), (mr.gets() + mr.rangeGets()) / (mr.bytes() / MIB),
                mr.bytesFetched() / (double) mr.bytes(), MIB / RAW_GET_RANGE,
                median(reads, x -> x.cpu().threadGroups().getOrDefault(CpuMeter.JVM_GC, 0.0)),
                median(reads, x -> x.cpu().gcPauseMillisPerSecond()),
                median(rawGets, x -> x.cpu().threadGroups().getOrDefault(CpuMeter.JVM_GC, 0.0)),
                median(rawGets, x -> x.cpu().gcPauseMillisPerSecond())));
        b.append(String.format(Locale.ROOT, "- At %,d appends/s an append waits for its batch to be sealed (up to the "
                        + "%.0f ms flush delay after the batch's first append, so about half of it on average), then "
                        + "for the PUT, then for its stream's index commit: p50 %.1f ms, p99 %.1f ms.\n",
                o.rate, flush, ms(plain.append(), 0.5), ms(plain.append(), 0.99)));
        return b.toString();
    }

    private static <T> void row(StringBuilder b, String label, List<T> runs, ToDoubleFunction<T> f, String format) {
        b.append("| ").append(label).append(" | ");
        for (T r : runs) {
            b.append(fmt(format, f.applyAsDouble(r))).append(" | ");
        }
        b.append("**").append(fmt(format, median(runs, f))).append("** |\n");
    }

    private static void latencyRow(StringBuilder b, String label, Histogram plain, Histogram injected, double q) {
        b.append("| ").append(label).append(" | ").append(fmt("%.1f ms", ms(plain, q))).append(" | ")
                .append(fmt("%.1f ms", ms(injected, q))).append(" |\n");
    }

    private static String pair(Histogram h) {
        return fmt("%.1f", ms(h, 0.5)) + " / " + fmt("%.1f ms", ms(h, 0.99)) + " (" + fmt("%,d", h.count()) + ")";
    }

    private static void cpuRow(StringBuilder b, String phase, List<CpuMeter.Usage> usages) {
        b.append("| ").append(phase).append(" | ");
        for (String p : CpuMeter.names()) {
            b.append(fmt("%.2f", median(usages, u -> u.processes().get(p)))).append(" | ");
        }
        b.append(fmt("%.2f", median(usages, CpuMeter.Usage::total))).append(" | ")
                .append(fmt("%.2f", median(usages, CpuMeter.Usage::others))).append(" | ")
                .append(fmt("%.0f", median(usages, CpuMeter.Usage::gcPauseMillisPerSecond))).append(" |\n");
    }

    private static <T> double perHundred(List<T> runs, ToDoubleFunction<T> cores, ToDoubleFunction<T> mibPerSecond) {
        return median(runs, r -> cores.applyAsDouble(r) / mibPerSecond.applyAsDouble(r) * 100);
    }

    /** The S3Proxy version from its jar's manifest (the jar the test kit points at), or "(version unknown)". */
    private static String s3ProxyVersion() {
        String jar = System.getenv("S3PROXY_JAR");
        if (jar == null || jar.isBlank()) {
            Properties p = new Properties();
            try (InputStream in = LogBenchmark.class.getResourceAsStream("/lakestream-testkit.properties")) {
                if (in != null) {
                    p.load(in);
                }
            } catch (IOException e) {
                return "(version unknown)";
            }
            jar = p.getProperty("s3proxy.jar");
        }
        if (jar == null) {
            return "(version unknown)";
        }
        try (JarFile f = new JarFile(jar)) {
            var attrs = f.getManifest() == null ? null : f.getManifest().getMainAttributes();
            String v = attrs == null ? null : attrs.getValue("Implementation-Version");
            return v == null ? "(version unknown)" : v;
        } catch (IOException e) {
            return "(version unknown)";
        }
    }

    /** Replaces the {@code ## Core log} section of {@code doc} (up to the next {@code ## } heading), or adds it. */
    static void writeSection(Path doc, String section) throws IOException {
        String body = section.endsWith("\n") ? section : section + "\n";
        if (!Files.exists(doc)) {
            Path parent = doc.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            Files.writeString(doc, "# Benchmarks\n\nMeasured figures of the project's benchmarks, one section per "
                    + "benchmark, each written by its own program.\n\n" + body, StandardCharsets.UTF_8);
            return;
        }
        List<String> lines = Files.readAllLines(doc, StandardCharsets.UTF_8);
        int start = -1;
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).trim().equals(SECTION)) {
                start = i;
                break;
            }
        }
        StringBuilder out = new StringBuilder();
        if (start < 0) {
            lines.forEach(l -> out.append(l).append("\n"));
            if (!lines.isEmpty() && !lines.get(lines.size() - 1).isBlank()) {
                out.append("\n");
            }
            out.append(body);
        } else {
            int end = lines.size();
            boolean fenced = false;
            for (int i = start + 1; i < lines.size(); i++) {
                if (lines.get(i).startsWith("```")) {
                    fenced = !fenced;
                }
                if (!fenced && lines.get(i).startsWith("## ")) {
                    end = i;
                    break;
                }
            }
            for (int i = 0; i < start; i++) {
                out.append(lines.get(i)).append("\n");
            }
            out.append(body);
            if (end < lines.size()) {
                out.append("\n");
                for (int i = end; i < lines.size(); i++) {
                    out.append(lines.get(i)).append("\n");
                }
            }
        }
        Files.writeString(doc, out.toString(), StandardCharsets.UTF_8);
    }

    private void log(String format, Object... args) {
        progress.log(format, args);
    }
}
