package dev.lakestream.core.bench;

import static dev.lakestream.core.bench.Figures.MIB;
import static dev.lakestream.core.bench.Figures.median;
import static dev.lakestream.core.bench.Figures.ms;
import static dev.lakestream.core.bench.RawStoreLoad.RAW_GET_RANGE;

import dev.lakestream.core.Lakestream;
import dev.lakestream.core.LakestreamConfig;
import dev.lakestream.core.StreamLog;
import dev.lakestream.core.catalog.StreamInfo;
import dev.lakestream.core.metadata.MetadataStore;
import dev.lakestream.core.metadata.oxia.OxiaMetadataStore;
import dev.lakestream.core.metadata.oxia.OxiaMetadataStoreConfig;
import dev.lakestream.core.objectstore.ObjectStore;
import dev.lakestream.core.objectstore.s3.S3ObjectStore;
import dev.lakestream.core.objectstore.s3.S3ObjectStoreConfig;
import dev.lakestream.core.wal.WalWriterConfig;
import dev.lakestream.testkit.BenchCommandLine;
import dev.lakestream.testkit.BenchmarksDoc;
import dev.lakestream.testkit.RemoteStores;
import dev.lakestream.testkit.S3ProxyServer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

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
 *   <li>One stream read to its end as a broker's dispatcher reads it (100 entries at a time), against the same
 *       injected latency, with the reader's read-ahead off and on, alternating.</li>
 *   <li>PUTs per second and append latency at 10 and 100 appends/s, beside the fixed-rate run above.</li>
 *   <li>One append at a time to one stream, each waited for (a synchronous producer), with the adaptive flush
 *       policy and with the old fixed-deadline policy ({@code flushPolicy=deadline}) alternating, without and
 *       with injected latency; then on the embedded pair (directory + RocksDB), with a fixed-rate run there
 *       counting RocksDB's WAL fsyncs against index commits.</li>
 * </ol>
 * Throughput figures (1, 2, 5) are repeated and the report quotes medians. Raw PUT and writer runs
 * alternate, so drift in the machine's load hits both alike.
 *
 * <p>Usage: {@code LogBenchmark [--doc docs/benchmarks.md | --no-doc] [--command TEXT] [--quick] [--reps N]
 * [--pinned-reps N] [--streams N] [--entry-bytes N] [--outstanding N] [--jit-warmup-seconds N] [--writer-seconds N]
 * [--raw-seconds N] [--rate N] [--latency-seconds N] [--catchup-mib N] [--dispatch-mib N] [--dispatch-reps N]}. It always prints the report; with {@code --doc} (and not
 * {@code --quick}) it also writes it as the {@code ## Core log} section of that file, replacing that section
 * and keeping the others. {@code bin/bench-core} compiles and runs it.
 *
 * <p>This class starts the servers and stores and runs the phases in order; the loads are {@link WriterLoad},
 * {@link RawStoreLoad} and {@link CatchUpRead}, the options {@link BenchOptions}, the report {@link CoreLogReport}.
 */
public final class LogBenchmark {

    private static final String SECTION = CoreLogReport.SECTION;

    private final BenchOptions o;
    private final LakestreamConfig config = LakestreamConfig.DEFAULT;
    private final CpuMeter cpu = new CpuMeter();
    private final ProgressLog progress = new ProgressLog();
    private final ReadCheck readCheck = new ReadCheck();
    private BenchContext ctx;

    private LogBenchmark(BenchOptions o) {
        this.o = o;
    }

    public static void main(String[] args) {
        // The Oxia client and the SDK leave non-daemon threads behind: exit explicitly either way (the servers
        // are stopped by then).
        try {
            BenchOptions o = BenchCommandLine.parseOrExit(new BenchOptions(), args);
            LogBenchmark benchmark = new LogBenchmark(o);
            String report = benchmark.run();
            System.out.println();
            System.out.println(report);
            if (benchmark.readCheck.failed()) {
                // After the report, so that its figures are visible; the doc keeps its last passing run.
                benchmark.readCheck.failures().forEach(System.out::println);
                System.out.println("[bench] FAILED: what was written was not read back; the doc was not written");
                System.exit(1);
            }
            if (o.doc != null && o.quick) {
                System.out.println("[bench] quick mode: " + o.doc + " left as it was");
            } else if (o.doc != null) {
                BenchmarksDoc.writeSection(o.doc, SECTION, report);
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
        log(
                "machine: %d cores, %s, %s, %s; load %s",
                machine.cores(), machine.cpu(), machine.memory(), machine.jdk(), loadBefore);

        try (RemoteStores remote = RemoteStores.start("log-bench")) {
            S3ProxyServer s3proxy = remote.s3();
            log("S3Proxy at %s, Oxia at %s", s3proxy.endpoint(), remote.oxia().serviceAddress());
            ObjectStore s3 = new S3ObjectStore(S3ObjectStoreConfig.builder()
                    .bucket(remote.bucket())
                    .prefix("bench")
                    .endpoint(s3proxy.endpoint())
                    .region(s3proxy.region())
                    .pathStyleAccess(true)
                    .credentials(s3proxy.accessKey(), s3proxy.secretKey())
                    .build());
            MetadataStore oxiaStore = OxiaMetadataStore.open(
                    OxiaMetadataStoreConfig.of(remote.oxia().serviceAddress()));
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
        List<WriterRun> pinnedWriters = new ArrayList<>();
        List<RawRun> pinnedRaws = new ArrayList<>();
        String pinning = CpuPinning.unavailable(machine.cores());
        pinning = pinning != null
                ? "not measured: " + pinning
                : o.pinnedReps == 0 ? "not measured: --pinned-reps 0" : null;
        RawRun rawObserved = null;
        LatencyRun plain;
        LatencyRun injected;
        Histogram injectedLarge = new Histogram();
        Histogram injectedInRun;
        List<ReadRun> reads = new ArrayList<>();
        List<RawRun> rawGets = new ArrayList<>();
        WrittenStreams backlog;
        WrittenStreams dispatchSet;
        List<LatencyRun> lowRates = new ArrayList<>();
        List<SequentialAppends.Run> sequential = new ArrayList<>();
        List<SequentialAppends.Run> sequentialInjected = new ArrayList<>();
        SequentialAppends oneByOne = new SequentialAppends(ctx);
        LakestreamConfig deadlineConfig =
                config.withWriter(config.writer().withFlushPolicy(WalWriterConfig.FlushPolicy.DEADLINE));

        try (Lakestream log = Lakestream.open(ctx.objects, ctx.metadata, config)) {
            // Warm-up: JIT of all three processes, connection pools, Oxia's first sessions and subscriptions.
            log("warm-up");
            List<StreamLog> warm = streams(log, "warmup");
            writer.saturating(warm, new long[warm.size()], o.writerWarmupSeconds, o.jitWarmupSeconds);
            raw.put(maxObject, rawConcurrency, "warmup", o.rawWarmupSeconds, Math.max(1, o.rawWarmupSeconds));

            // Writer and raw PUT runs alternate, so that drift in the machine's load hits both alike.
            for (int rep = 1; rep <= o.reps; rep++) {
                List<StreamLog> streams = streams(log, "run" + rep);
                long[] seqs = new long[streams.size()];
                WriterRun wr = writer.saturating(streams, seqs, o.writerWarmupSeconds, o.writerSeconds);
                writers.add(wr);
                log(
                        "run %d writer: %.1f MiB/s, %.0f entries/s, %d PUTs (mean %.2f MiB, %.1f in flight), "
                                + "append p50 %.0f ms p99 %.0f ms, failures %d; cpu %s",
                        rep,
                        wr.mibPerSecond(),
                        wr.entriesPerSecond(),
                        wr.puts(),
                        wr.meanObjectBytes() / MIB,
                        wr.meanInFlightPuts(),
                        ms(wr.appendLatency(), 0.5),
                        ms(wr.appendLatency(), 0.99),
                        wr.failures(),
                        wr.cpu().summary(machine.cores()));
                RawRun put = raw.put(maxObject, rawConcurrency, "run" + rep, o.rawWarmupSeconds, o.rawSeconds);
                raws.add(put);
                log(
                        "run %d raw PUT: %.1f MiB/s (%d x %d MiB, %d in flight, p50 %.0f ms p99 %.0f ms); cpu %s",
                        rep,
                        put.mibPerSecond(),
                        put.puts(),
                        maxObject >> 20,
                        rawConcurrency,
                        put.p50Millis(),
                        put.p99Millis(),
                        put.cpu().summary(machine.cores()));
                // Also at the concurrency the writer actually had (its mean PUTs in flight, rounded).
                int writerConcurrency = (int) Math.max(1, Math.round(wr.meanInFlightPuts()));
                RawRun same = writerConcurrency == rawConcurrency
                        ? put
                        : raw.put(maxObject, writerConcurrency, "run" + rep + "-w", o.rawWarmupSeconds, o.rawSeconds);
                rawsAtWriter.add(same);
                log(
                        "run %d raw PUT at the writer's concurrency: %.1f MiB/s (%d in flight, p50 %.0f ms p99 %.0f ms)",
                        rep, same.mibPerSecond(), same.concurrency(), same.p50Millis(), same.p99Millis());
            }
            // Raw PUTs at the object size the writer actually produced, when that differs from the maximum.
            double observed = median(writers, WriterRun::meanObjectBytes);
            if (Math.abs(observed - maxObject) > 0.05 * maxObject) {
                int size = (int) Math.round(observed);
                int concurrency = (int) Math.max(1, Math.round(median(writers, WriterRun::meanInFlightPuts)));
                rawObserved = raw.put(size, concurrency, "observed", o.rawWarmupSeconds, o.rawSeconds);
                log(
                        "raw PUT at the observed size %.2f MiB, %d in flight: %.1f MiB/s",
                        size / MIB, concurrency, rawObserved.mibPerSecond());
            }

            // The same pair of runs with the stores on a CPU of their own (see CpuPinning).
            if (pinning == null) {
                try (CpuPinning pinned = CpuPinning.pin(machine.cores())) {
                    pinning = pinned.description();
                    log("pinned: %s", pinning);
                    for (int rep = 1; rep <= o.pinnedReps; rep++) {
                        List<StreamLog> streams = streams(log, "pinned" + rep);
                        WriterRun wr = writer.saturating(
                                streams, new long[streams.size()], o.writerWarmupSeconds, o.writerSeconds);
                        pinnedWriters.add(wr);
                        log(
                                "pinned run %d writer: %.1f MiB/s; cpu %s",
                                rep, wr.mibPerSecond(), wr.cpu().summary(machine.cores()));
                        RawRun put =
                                raw.put(maxObject, rawConcurrency, "pinned" + rep, o.rawWarmupSeconds, o.rawSeconds);
                        pinnedRaws.add(put);
                        log(
                                "pinned run %d raw PUT: %.1f MiB/s; cpu %s",
                                rep, put.mibPerSecond(), put.cpu().summary(machine.cores()));
                    }
                }
            }

            log("fixed-rate latency, %d appends/s", o.rate);
            plain = writer.fixedRate(ctx.objectsI, streams(log, "latency"), o.latencyWarmupSeconds, o.latencySeconds);
            log(
                    "latency: append p50 %.1f ms p99 %.1f ms; PUT p99 %.1f ms; commit p99 %.1f ms",
                    ms(plain.append(), 0.5), ms(plain.append(), 0.99), ms(plain.put(), 0.99), ms(plain.commit(), 0.99));
            for (int rate : new int[] {10, 100}) {
                LatencyRun lr = writer.fixedRate(
                        ctx.objectsI,
                        ctx.metadataI,
                        streams(log, "rate" + rate),
                        o.latencyWarmupSeconds,
                        o.lowRateSeconds,
                        rate);
                lowRates.add(lr);
                log(
                        "%d appends/s: append p50 %.1f ms p99 %.1f ms; %.1f PUTs/s",
                        rate, ms(lr.append(), 0.5), ms(lr.append(), 0.99), lr.puts() / lr.seconds());
            }

            try (Lakestream old = Lakestream.open(ctx.objects, ctx.metadata, deadlineConfig)) {
                for (int rep = 1; rep <= o.sequentialReps; rep++) {
                    sequential.add(oneByOne.run(
                            "adaptive", ctx.objectsI, oneStream(log, "seq-adaptive-" + rep), 1, o.sequentialSeconds));
                    sequential.add(oneByOne.run(
                            "deadline", ctx.objectsI, oneStream(old, "seq-deadline-" + rep), 1, o.sequentialSeconds));
                    logSequential(rep, sequential.get(sequential.size() - 2), sequential.get(sequential.size() - 1));
                }
            }

            backlog = catchUp.fill(log, ctx.createStreams(log, "backlog"), o.catchUpMib);
            StreamInfo dispatchStream =
                    log.catalog().create("bench", "dispatch", Map.of()).join();
            log.stream(dispatchStream).fence().join();
            dispatchSet = catchUp.fill(log, List.of(dispatchStream), o.dispatchMib);
            log(
                    "dispatch data: 1 stream x %,d entries, %,d WAL objects",
                    dispatchSet.ends()[0], dispatchSet.objects());
            log(
                    "catch-up data: %d streams x %,d entries, %,d WAL objects, %,d index records",
                    o.streams, backlog.ends()[0], backlog.objects(), backlog.indexRecords());
        }

        // Warm-up of the read path (JIT), not measured: one whole catch-up read of the same data set.
        ReadRun warmRead = catchUp.read(backlog);
        readCheck.check("catch-up warm-up read", warmRead.written(), warmRead.entries(), warmRead.mismatches());
        log("catch-up warm-up read: %.1f MiB/s (not counted)", warmRead.mibPerSecond());
        String rawPrefix = "raw/run1/";
        for (int rep = 1; rep <= o.reps; rep++) {
            ReadRun r = catchUp.read(backlog);
            reads.add(r);
            readCheck.check("catch-up read, run " + rep, r.written(), r.entries(), r.mismatches());
            log(
                    "run %d catch-up read: %.1f MiB/s, %.0f entries/s, %d GETs + %d ranged GETs, %.1f MiB fetched, "
                            + "%d mismatches; ranged GET p50 %.1f ms p99 %.1f ms, %.1f in flight; index scan p50 %.1f ms "
                            + "p99 %.1f ms; cpu %s; threads %s",
                    rep,
                    r.mibPerSecond(),
                    r.entriesPerSecond(),
                    r.gets(),
                    r.rangeGets(),
                    r.bytesFetched() / MIB,
                    r.mismatches(),
                    ms(r.rangeGetLatency(), 0.5),
                    ms(r.rangeGetLatency(), 0.99),
                    r.meanInFlightGets(),
                    ms(r.scanLatency(), 0.5),
                    ms(r.scanLatency(), 0.99),
                    r.cpu().summary(machine.cores()),
                    r.cpu().topThreads(6));
            RawRun g = raw.rangedGet(
                    rawPrefix,
                    raws.get(0).keys(),
                    maxObject,
                    RAW_GET_RANGE,
                    ctx.s3Concurrency(),
                    o.rawWarmupSeconds,
                    o.rawGetSeconds);
            rawGets.add(g);
            log(
                    "run %d raw ranged GET: %.1f MiB/s (%d x %d KiB, %d in flight, p50 %.1f ms p99 %.1f ms); cpu %s",
                    rep,
                    g.mibPerSecond(),
                    g.puts(),
                    RAW_GET_RANGE >> 10,
                    g.concurrency(),
                    g.p50Millis(),
                    g.p99Millis(),
                    g.cpu().summary(machine.cores()));
        }

        log(
                "fixed-rate latency with injected object-store latency (p50 %.0f ms, p99 %.0f ms)",
                o.injectP50Millis, o.injectP99Millis);
        LatencyInjector probe = new LatencyInjector(ctx.s3, o.injectP50Millis, o.injectP99Millis, 7);
        for (int i = 0; i < 1_000_000; i++) {
            injectedLarge.record(probe.drawNanos());
        }
        probe.close();
        try (LatencyInjector injector = new LatencyInjector(ctx.s3, o.injectP50Millis, o.injectP99Millis, 42)) {
            Instrumented slowI = Instrumented.objectStore(injector.asObjectStore());
            try (Lakestream slow = Lakestream.open(slowI.asObjectStore(), ctx.metadata, config)) {
                injected = writer.fixedRate(slowI, streams(slow, "injected"), o.latencyWarmupSeconds, o.latencySeconds);
                try (Lakestream old = Lakestream.open(slowI.asObjectStore(), ctx.metadata, deadlineConfig)) {
                    sequentialInjected.add(oneByOne.run(
                            "adaptive", slowI, oneStream(slow, "seq-inj-adaptive"), 1, o.sequentialSeconds));
                    sequentialInjected.add(oneByOne.run(
                            "deadline", slowI, oneStream(old, "seq-inj-deadline"), 1, o.sequentialSeconds));
                    logSequential(0, sequentialInjected.get(0), sequentialInjected.get(1));
                }
            }
            injectedInRun = injector.injected;
        }
        log(
                "injected: append p50 %.1f ms p99 %.1f ms; PUT p99 %.1f ms; commit p99 %.1f ms",
                ms(injected.append(), 0.5),
                ms(injected.append(), 0.99),
                ms(injected.put(), 0.99),
                ms(injected.commit(), 0.99));

        // One stream read as a dispatcher reads it, against the same injected latency: read-ahead off, then on.
        List<DispatchRun> dispatchOff = new ArrayList<>();
        List<DispatchRun> dispatchOn = new ArrayList<>();
        try (LatencyInjector injector = new LatencyInjector(ctx.s3, o.injectP50Millis, o.injectP99Millis, 43)) {
            Instrumented slowI = Instrumented.objectStore(injector.asObjectStore());
            for (int rep = 1; rep <= o.dispatchReps; rep++) {
                DispatchRun off =
                        catchUp.dispatch(dispatchSet, slowI, config.reader().withReadAhead(0));
                DispatchRun on = catchUp.dispatch(dispatchSet, slowI, config.reader());
                dispatchOff.add(off);
                dispatchOn.add(on);
                readCheck.check(
                        "dispatcher-sized reads, read-ahead off, run " + rep,
                        off.written(),
                        off.entries(),
                        off.mismatches());
                readCheck.check(
                        "dispatcher-sized reads, read-ahead on, run " + rep,
                        on.written(),
                        on.entries(),
                        on.mismatches());
                log(
                        "run %d dispatcher-sized reads, injected latency: read-ahead off %.1f MiB/s (%d ranged GETs), "
                                + "on %.1f MiB/s (%d ranged GETs); mismatches %d",
                        rep,
                        off.mibPerSecond(),
                        off.rangeGets(),
                        on.mibPerSecond(),
                        on.rangeGets(),
                        off.mismatches() + on.mismatches());
            }
        }

        log("embedded pair: one append at a time, and %d appends/s", o.rate);
        EmbeddedPairRuns.Result embedded = EmbeddedPairRuns.run(ctx, new WriterLoad(ctx), oneByOne, config);

        String loadAfter = Machine.loadAverage();
        double minutes = progress.minutes();
        Measurements measured = new Measurements(
                machine,
                loadBefore,
                loadAfter,
                date,
                minutes,
                maxObject,
                rawConcurrency,
                raws,
                rawsAtWriter,
                writers,
                pinning,
                pinnedWriters,
                pinnedRaws,
                rawObserved,
                plain,
                injected,
                injectedLarge,
                injectedInRun,
                backlog,
                reads,
                rawGets,
                dispatchSet,
                dispatchOff,
                dispatchOn,
                lowRates,
                sequential,
                sequentialInjected,
                embedded);
        return new CoreLogReport(o, config, ctx.s3Concurrency(), measured).render();
    }

    /** {@code o.streams} new streams, fenced for {@code log}, and its handles to them. */
    private List<StreamLog> streams(Lakestream log, String prefix) {
        return BenchContext.handles(log, ctx.createStreams(log, prefix));
    }

    /** One new stream, fenced for {@code log}, and its handle. */
    private static StreamLog oneStream(Lakestream log, String name) {
        StreamInfo info = log.catalog().create("bench", name, Map.of()).join();
        StreamLog s = log.stream(info);
        s.fence().join();
        return s;
    }

    private void logSequential(int rep, SequentialAppends.Run adaptive, SequentialAppends.Run deadline) {
        log(
                "%s one at a time: adaptive %.0f appends/s (p50 %.1f ms, p99 %.1f ms, %.1f PUTs/s), deadline %.0f "
                        + "appends/s (p50 %.1f ms, p99 %.1f ms)",
                rep == 0 ? "injected latency," : "run " + rep + ",",
                adaptive.appendsPerSecond(),
                ms(adaptive.append(), 0.5),
                ms(adaptive.append(), 0.99),
                adaptive.putsPerSecond(),
                deadline.appendsPerSecond(),
                ms(deadline.append(), 0.5),
                ms(deadline.append(), 0.99));
    }

    private void log(String format, Object... args) {
        progress.log(format, args);
    }
}
