package dev.lakestream.core.bench;

import static dev.lakestream.core.bench.CatchUpRead.READ_MAX_BYTES;
import static dev.lakestream.core.bench.CatchUpRead.READ_MAX_ENTRIES;
import static dev.lakestream.core.bench.Figures.MIB;
import static dev.lakestream.core.bench.Figures.fmt;
import static dev.lakestream.core.bench.Figures.median;
import static dev.lakestream.core.bench.Figures.medianRun;
import static dev.lakestream.core.bench.Figures.ms;
import static dev.lakestream.core.bench.Figures.size;
import static dev.lakestream.core.bench.RawStoreLoad.RAW_GET_RANGE;

import dev.lakestream.core.LakestreamConfig;
import dev.lakestream.core.wal.ReaderConfig;
import dev.lakestream.core.wal.WalWriterConfig;
import java.io.IOException;
import java.io.InputStream;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.function.ToDoubleFunction;
import java.util.jar.JarFile;
import java.util.stream.Collectors;

/**
 * The {@code ## Core log} section of {@code docs/benchmarks.md}, in markdown, from one run's {@link Measurements}:
 * the setup, the throughput table with the target's verdict, the fixed-rate latency table, request counts, CPU,
 * and statements read off the numbers. Builds the text only; {@link BenchmarksDoc} puts it in the file.
 */
final class CoreLogReport {

    static final String SECTION = "## Core log";
    /** Other processes busier than this (cores) during a run make it disturbed for the verdict. */
    private static final double DISTURBED_CORES = 0.25;

    private final BenchOptions o;
    private final WalWriterConfig w;
    private final ReaderConfig r;
    /** The S3 store's limit on requests in flight. */
    private final int s3Concurrency;

    private final StringBuilder b = new StringBuilder();

    // The measurements, under the names the sections use.
    private final Machine m;
    private final String loadBefore;
    private final String loadAfter;
    private final Instant date;
    private final double minutes;
    private final int maxObject;
    private final int rawConcurrency;
    private final List<RawRun> raws;
    private final List<RawRun> rawsAtWriter;
    private final List<WriterRun> writers;
    private final String pinning;
    private final List<WriterRun> pinnedWriters;
    private final List<RawRun> pinnedRaws;
    private final RawRun rawObserved;
    private final LatencyRun plain;
    private final LatencyRun injected;
    private final Histogram injectedLarge;
    private final Histogram injectedInRun;
    private final WrittenStreams backlog;
    private final List<ReadRun> reads;
    private final List<RawRun> rawGets;
    private final WrittenStreams dispatchSet;
    private final List<DispatchRun> dispatchOff;
    private final List<DispatchRun> dispatchOn;
    private final List<LatencyRun> lowRates;
    private final List<SequentialAppends.Run> sequential;
    private final List<SequentialAppends.Run> sequentialInjected;
    private final EmbeddedPairRuns.Result embedded;

    // Figures more than one section quotes.
    /** Per run: writer / raw PUT at the window's concurrency, and at the writer's own. */
    private final List<Double> ratios = new ArrayList<>();

    private final List<Double> ratiosSame = new ArrayList<>();
    /** Per run: catch-up read / raw ranged GET. */
    private final List<Double> readRatios = new ArrayList<>();

    private final WriterRun mw;
    private final ReadRun mr;
    /** The wait an append can pay before its batch is sealed, in ms: the flush delay with the deadline policy. */
    private final double flush;
    /** The latency sum's label: what {@link #flush} stands for, if anything, plus PUT and commit. */
    private final String sumLabel;

    CoreLogReport(BenchOptions o, LakestreamConfig config, int s3Concurrency, Measurements x) {
        this.o = o;
        this.w = config.writer();
        this.r = config.reader();
        this.s3Concurrency = s3Concurrency;
        this.m = x.machine();
        this.loadBefore = x.loadBefore();
        this.loadAfter = x.loadAfter();
        this.date = x.date();
        this.minutes = x.minutes();
        this.maxObject = x.maxObject();
        this.rawConcurrency = x.rawConcurrency();
        this.raws = x.raws();
        this.rawsAtWriter = x.rawsAtWriter();
        this.writers = x.writers();
        this.pinning = x.pinning();
        this.pinnedWriters = x.pinnedWriters();
        this.pinnedRaws = x.pinnedRaws();
        this.rawObserved = x.rawObserved();
        this.plain = x.plain();
        this.injected = x.injected();
        this.injectedLarge = x.injectedLarge();
        this.injectedInRun = x.injectedInRun();
        this.backlog = x.backlog();
        this.reads = x.reads();
        this.rawGets = x.rawGets();
        this.dispatchSet = x.dispatchSet();
        this.dispatchOff = x.dispatchOff();
        this.dispatchOn = x.dispatchOn();
        this.lowRates = x.lowRates();
        this.sequential = x.sequential();
        this.sequentialInjected = x.sequentialInjected();
        this.embedded = x.embedded();
        for (int i = 0; i < writers.size(); i++) {
            ratios.add(writers.get(i).mibPerSecond() / raws.get(i).mibPerSecond());
            ratiosSame.add(writers.get(i).mibPerSecond() / rawsAtWriter.get(i).mibPerSecond());
        }
        for (int i = 0; i < Math.min(reads.size(), rawGets.size()); i++) {
            readRatios.add(reads.get(i).mibPerSecond() / rawGets.get(i).mibPerSecond());
        }
        this.mw = medianRun(writers, WriterRun::mibPerSecond);
        this.mr = medianRun(reads, ReadRun::mibPerSecond);
        boolean deadline = w.flushPolicy() == WalWriterConfig.FlushPolicy.DEADLINE;
        this.flush = deadline ? w.flushDelay().toNanos() / 1e6 : 0;
        this.sumLabel = deadline ? "flushDelay + PUT p99 + commit p99" : "PUT p99 + commit p99";
    }

    /** The section, from its heading to the blank line after its last paragraph. */
    String render() {
        header();
        throughput();
        target();
        pinned();
        details();
        dispatch();
        latency();
        oneAtATime();
        embeddedPair();
        requests();
        cpu();
        reading();
        return b.toString();
    }

    /** The setup: command, date, machine, load, servers, workload, durations. */
    private void header() {
        b.append(SECTION).append("\n\n");
        b.append(
                "Written by `dev.lakestream.core.bench.LogBenchmark` (`lakestream-core/src/bench/java`), which starts "
                        + "its own S3Proxy and Oxia server through the test kit; the benchmark JVM, S3Proxy and Oxia all share "
                        + "the machine below. Figures are from one run of the command; do not edit them by hand, run it again.\n\n");
        b.append("- **Command:** `")
                .append(o.command)
                .append("`")
                .append(o.quick ? " (quick mode: short, 1 run)" : "")
                .append("\n");
        b.append("- **Date:** ")
                .append(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'")
                        .withZone(ZoneOffset.UTC)
                        .format(date))
                .append(String.format(Locale.ROOT, " (the whole benchmark took %.1f min)", minutes))
                .append("\n");
        b.append("- **Machine:** ")
                .append(m.cores())
                .append(" cores (`nproc`), ")
                .append(m.cpu())
                .append(", ")
                .append(m.memory())
                .append(" RAM; ")
                .append(m.jdk())
                .append("; ")
                .append(m.os())
                .append("\n");
        b.append("- **Load average (1/5/15 min):** ")
                .append(loadBefore)
                .append(" before, ")
                .append(loadAfter)
                .append(" after (other work on the machine, if any, is in these figures)\n");
        b.append("- **Servers:** S3Proxy ")
                .append(s3ProxyVersion())
                .append(" (filesystem-nio2 backend on local disk, "
                        + "its own JVM as the test kit starts it: `-Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1`); Oxia "
                        + "server from `tools/oxia-server` (1 shard, WAL not fsynced); both on 127.0.0.1\n");
        b.append(String.format(
                Locale.ROOT,
                "- **Workload:** %d streams, %d-byte entries of 1 record in pooled direct "
                        + "buffers, round-robin from one thread, at most %d appends in flight (%.0f MiB); each stream "
                        + "fenced by the writer as an owner does. Writer and reader at their defaults: maxObjectSize %s, flushDelay %d ms, "
                        + "flushPolicy %s (linger %d ms, maxPutsPerSecond %d), maxPendingBytes %s; reader cache %s, wholeObjectMaxSize %s, prefetch %d records; S3 "
                        + "store maxConcurrentRequests %d\n",
                o.streams,
                o.entryBytes,
                o.outstanding,
                o.outstanding * (double) o.entryBytes / MIB,
                size(w.maxObjectBytes()),
                w.flushDelay().toMillis(),
                w.flushPolicy().name().toLowerCase(Locale.ROOT),
                w.linger().toMillis(),
                w.maxPutsPerSecond(),
                size(w.maxPendingBytes()),
                size(r.cacheBytes()),
                size(r.wholeObjectMaxBytes()),
                r.prefetchRecords(),
                s3Concurrency));
        b.append(String.format(
                Locale.ROOT,
                "- **Durations:** warm-up first, not measured: %d s of writer appends "
                        + "and %d s of raw PUTs; per throughput "
                        + "run %d s writer (after %d s ramp-up), then %d s raw PUT (after %d s); %d runs, alternating; "
                        + "latency runs %d s each (after %d s); catch-up: a %d MiB data set read once to warm up, then "
                        + "%d times measured, each followed by %d s of raw ranged GETs (after %d s)\n\n",
                o.writerWarmupSeconds + o.jitWarmupSeconds,
                o.rawWarmupSeconds + Math.max(1, o.rawWarmupSeconds),
                o.writerSeconds,
                o.writerWarmupSeconds,
                o.rawSeconds,
                o.rawWarmupSeconds,
                o.reps,
                o.latencySeconds,
                o.latencyWarmupSeconds,
                o.catchUpMib,
                o.reps,
                o.rawGetSeconds,
                o.rawWarmupSeconds));
    }

    /** The throughput table: raw PUTs, writer, catch-up read and raw ranged GETs, per run and median. */
    private void throughput() {
        b.append("### Throughput\n\n");
        b.append("MiB = 2^20 bytes. Writer figures count payload bytes of appends completed (durable in S3Proxy and "
                + "committed in Oxia) during the window.\n\n");
        b.append("| | ");
        for (int i = 1; i <= writers.size(); i++) {
            b.append("run ").append(i).append(" | ");
        }
        b.append("median |\n|---|");
        b.append("---|".repeat(writers.size() + 1)).append("\n");
        row(
                b,
                "Raw PUT, " + size(maxObject) + " objects, " + rawConcurrency + " in flight (MiB/s)",
                raws,
                RawRun::mibPerSecond,
                "%.1f");
        b.append("| Raw PUT, ")
                .append(size(maxObject))
                .append(" objects, as many in flight as the writer had " + "(MiB/s) | ");
        for (RawRun run : rawsAtWriter) {
            b.append(fmt("%.1f", run.mibPerSecond()))
                    .append(" (")
                    .append(run.concurrency())
                    .append(") | ");
        }
        b.append("**")
                .append(fmt("%.1f", median(rawsAtWriter, RawRun::mibPerSecond)))
                .append("** |\n");
        row(b, "Writer append, " + o.streams + " streams (MiB/s)", writers, WriterRun::mibPerSecond, "%.1f");
        row(b, "Writer append (entries/s)", writers, WriterRun::entriesPerSecond, "%,.0f");
        row(b, "WAL object PUTs in flight during writer runs (mean)", writers, WriterRun::meanInFlightPuts, "%.1f");
        row(
                b,
                "Other processes' CPU during the writer run (cores)",
                writers,
                x -> x.cpu().others(),
                "%.2f");
        row(
                b,
                "Other processes' CPU during the raw PUT run, " + rawConcurrency + " in flight (cores)",
                raws,
                x -> x.cpu().others(),
                "%.2f");
        row(b, "Writer / raw PUT (" + rawConcurrency + " in flight)", ratios, x -> x, "%.2f");
        row(b, "Writer / raw PUT (writer's concurrency)", ratiosSame, x -> x, "%.2f");
        row(
                b,
                "Catch-up read, fresh instance, " + o.streams + " streams (MiB/s)",
                reads,
                ReadRun::mibPerSecond,
                "%.1f");
        row(b, "Catch-up read (entries/s)", reads, ReadRun::entriesPerSecond, "%,.0f");
        row(
                b,
                "Raw ranged GET, " + size(RAW_GET_RANGE) + " ranges, " + s3Concurrency + " in flight (MiB/s)",
                rawGets,
                RawRun::mibPerSecond,
                "%.1f");
        row(b, "Catch-up read / raw ranged GET", readRatios, x -> x, "%.2f");
        row(
                b,
                "Other processes' CPU during the catch-up read (cores)",
                reads,
                x -> x.cpu().others(),
                "%.2f");
        row(
                b,
                "Other processes' CPU during the raw ranged GET run (cores)",
                rawGets,
                x -> x.cpu().others(),
                "%.2f");
        b.append("\n");
    }

    /**
     * The writer/raw ratio on the shared cores. Not the target's test: there, S3Proxy gets whatever CPU the writer
     * leaves it, so the store's capacity differs between the two runs being compared (see {@link #pinned()}).
     */
    private void target() {
        double rawMedian = median(raws, RawRun::mibPerSecond);
        double writerMedian = median(writers, WriterRun::mibPerSecond);
        double ratioMedian = median(ratios, x -> x);
        double ratioSameMedian = median(ratiosSame, x -> x);
        // A run whose pair (writer run and the raw PUT run after it) shared the machine with other work is noise.
        List<Double> clean = new ArrayList<>();
        List<Integer> cleanRuns = new ArrayList<>();
        for (int i = 0; i < writers.size(); i++) {
            if (writers.get(i).cpu().others() < DISTURBED_CORES
                    && raws.get(i).cpu().others() < DISTURBED_CORES) {
                clean.add(ratios.get(i));
                cleanRuns.add(i + 1);
            }
        }
        String undisturbed = clean.isEmpty()
                ? "no run had the machine to itself (other processes used " + fmt("%.2f", DISTURBED_CORES)
                        + " cores or more during every run)"
                : "on the runs the machine had to itself (other processes below " + fmt("%.2f", DISTURBED_CORES)
                        + " cores during both the writer and the raw PUT run: run "
                        + cleanRuns.stream().map(String::valueOf).collect(Collectors.joining(", ")) + ") writer/raw "
                        + clean.stream().map(x -> fmt("%.2f", x)).collect(Collectors.joining(", "))
                        + (clean.size() > 1 ? ", median " + fmt("%.2f", median(clean, x -> x)) : "");
        b.append(String.format(
                Locale.ROOT,
                "**Writer / raw PUT on shared cores: median %.2f** (median writer %.1f "
                        + "MiB/s, median raw PUT %.1f MiB/s with %d in flight: the writer's append window of %d x %s = "
                        + "%.0f MiB holds %d objects); %s; against raw PUTs with as many in flight as the writer "
                        + "actually had, median %.2f. S3Proxy had %.2f cores in the raw PUT runs and %.2f in the "
                        + "writer runs (medians): on shared cores the store's capacity is what the writer leaves it, so "
                        + "this ratio counts the writer's CPU per byte (see CPU below). The 80%% target is judged with "
                        + "the stores on a core of their own, next.\n\n",
                ratioMedian,
                writerMedian,
                rawMedian,
                rawConcurrency,
                o.outstanding,
                size(o.entryBytes),
                o.outstanding * (double) o.entryBytes / MIB,
                rawConcurrency,
                undisturbed,
                ratioSameMedian,
                median(raws, x -> process(x.cpu(), CpuMeter.S3PROXY)),
                median(writers, x -> process(x.cpu(), CpuMeter.S3PROXY))));
    }

    /** The writer and raw PUT runs again with the stores on a CPU of their own, and the target judged on them. */
    private void pinned() {
        b.append("### Writer and raw PUTs with the stores on their own core\n\n");
        if (pinnedWriters.isEmpty()) {
            b.append("Not measured: ")
                    .append(pinning.replaceFirst("^not measured: ", ""))
                    .append(".\n\n");
            return;
        }
        b.append(String.format(
                Locale.ROOT,
                "The same writer and raw PUT runs (%d s and %d s, alternating, %d "
                        + "times) with %s (`taskset`). The target asks whether the writer keeps up with what the "
                        + "object store can take. On this machine's shared cores above, every core the writer uses is "
                        + "one S3Proxy lacks, so the store is slower in the writer runs than in the raw PUT runs it is "
                        + "compared with; here it has the same CPU in both, as a remote object store has. The "
                        + "shared-core figures remain the ones that count CPU.\n\n",
                o.writerSeconds,
                o.rawSeconds,
                pinnedWriters.size(),
                pinning));
        List<Double> pinnedRatios = new ArrayList<>();
        for (int i = 0; i < pinnedWriters.size(); i++) {
            pinnedRatios.add(
                    pinnedWriters.get(i).mibPerSecond() / pinnedRaws.get(i).mibPerSecond());
        }
        b.append("| | ");
        for (int i = 1; i <= pinnedWriters.size(); i++) {
            b.append("run ").append(i).append(" | ");
        }
        b.append("median |\n|---|")
                .append("---|".repeat(pinnedWriters.size() + 1))
                .append("\n");
        row(
                b,
                "Raw PUT, " + size(maxObject) + " objects, " + rawConcurrency + " in flight (MiB/s)",
                pinnedRaws,
                RawRun::mibPerSecond,
                "%.1f");
        row(b, "Writer append, " + o.streams + " streams (MiB/s)", pinnedWriters, WriterRun::mibPerSecond, "%.1f");
        row(b, "Writer / raw PUT", pinnedRatios, x -> x, "%.2f");
        row(b, "S3Proxy during the raw PUT run (cores)", pinnedRaws, x -> process(x.cpu(), CpuMeter.S3PROXY), "%.2f");
        row(b, "S3Proxy during the writer run (cores)", pinnedWriters, x -> process(x.cpu(), CpuMeter.S3PROXY), "%.2f");
        row(
                b,
                "Benchmark JVM during the writer run (cores)",
                pinnedWriters,
                x -> process(x.cpu(), CpuMeter.BENCH),
                "%.2f");
        row(
                b,
                "Other processes' CPU during the writer run (cores)",
                pinnedWriters,
                x -> x.cpu().others(),
                "%.2f");
        double ratio = median(pinnedRatios, x -> x);
        long below = pinnedRatios.stream().filter(x -> x < 0.8).count();
        b.append(String.format(
                Locale.ROOT,
                "\n**Target (writer within 80%% of raw PUT throughput, the store with the "
                        + "same CPU in both): %s** (median writer/raw ratio %.2f; %d of %d runs below 0.80).\n\n",
                ratio >= 0.8 ? "met" : "not met",
                ratio,
                below,
                pinnedRatios.size()));
    }

    private static double process(CpuMeter.Usage usage, String name) {
        return usage.processes().getOrDefault(name, 0.0);
    }

    /** The median writer run and catch-up read in detail. */
    private void details() {
        b.append(String.format(
                Locale.ROOT,
                "Writer details (median run): %,d WAL objects PUT, mean %.2f MiB (%d of "
                        + "them reached maxObjectSize; the rest were flushed early by the flush policy or by the %d ms deadline); PUTs in flight "
                        + "%.1f on average, %d at most (the raw PUT runs keep %d in flight); PUT latency p50 %.0f ms, "
                        + "p99 %.0f ms (raw PUT runs: p50 %.0f ms, p99 %.0f ms); index commit (Oxia sequence-key put) "
                        + "p50 %.1f ms, p99 %.1f ms; append latency at saturation p50 %.0f ms, p99 %.0f ms; %d "
                        + "appends failed.\n\n",
                mw.puts(),
                mw.meanObjectBytes() / MIB,
                mw.fullObjects(),
                w.flushDelay().toMillis(),
                mw.meanInFlightPuts(),
                mw.maxInFlightPuts(),
                rawConcurrency,
                ms(mw.putLatency(), 0.5),
                ms(mw.putLatency(), 0.99),
                median(raws, RawRun::p50Millis),
                median(raws, RawRun::p99Millis),
                ms(mw.commitLatency(), 0.5),
                ms(mw.commitLatency(), 0.99),
                ms(mw.appendLatency(), 0.5),
                ms(mw.appendLatency(), 0.99),
                writers.stream().mapToLong(WriterRun::failures).sum()));
        if (rawObserved != null) {
            b.append(String.format(
                    Locale.ROOT,
                    "Raw PUT at the object size the writer produced (%.2f MiB, %d in "
                            + "flight, the writer's mean): %.1f MiB/s.\n\n",
                    rawObserved.objectBytes() / MIB,
                    rawObserved.concurrency(),
                    rawObserved.mibPerSecond()));
        } else {
            b.append(String.format(
                    Locale.ROOT,
                    "The writer's objects were %.2f MiB on average, within 5%% of "
                            + "maxObjectSize, so the raw PUT figure above is also the one at the observed size.\n\n",
                    mw.meanObjectBytes() / MIB));
        }
        b.append(String.format(
                Locale.ROOT,
                "Catch-up details: the data set is %d streams x %,d entries (%.0f MiB) in "
                        + "%,d WAL objects and %,d index records, written at full speed by the writer just before; each "
                        + "run opens a fresh `Lakestream` (empty cache) on the same stores and reads every stream from "
                        + "offset 0 to its end, all streams at once, each stream sequentially with reads of up to %d "
                        + "entries / %s, checking every entry's offset and bytes and counting the entries read against "
                        + "those written (a read short of them fails the benchmark: a LOST line, exit status 1, this "
                        + "section not written). Median run: %,d entries in %.1f s, "
                        + "%d mismatches; %,d whole-object GETs and %,d ranged GETs fetching %.0f MiB (%.2f bytes "
                        + "fetched per payload byte); ranged GETs took p50 %.0f ms, p99 %.0f ms from the call (waiting "
                        + "for one of the store's %d request slots included), %.0f in flight on average; %,d index "
                        + "range scans returned %,d index records (%.1f per record of the data set), p50 %.1f ms, p99 "
                        + "%.1f ms. S3Proxy serves from the OS page cache here (the data was just written).\n\n",
                o.streams,
                backlog.ends()[0],
                Arrays.stream(backlog.ends()).sum() * (double) o.entryBytes / MIB,
                backlog.objects(),
                backlog.indexRecords(),
                READ_MAX_ENTRIES,
                size(READ_MAX_BYTES),
                mr.entries(),
                mr.seconds(),
                mr.mismatches(),
                mr.gets(),
                mr.rangeGets(),
                mr.bytesFetched() / MIB,
                mr.bytesFetched() / (double) mr.bytes(),
                ms(mr.rangeGetLatency(), 0.5),
                ms(mr.rangeGetLatency(), 0.99),
                s3Concurrency,
                mr.meanInFlightGets(),
                mr.indexScans(),
                mr.indexRecordsScanned(),
                mr.indexRecordsScanned() / (double) Math.max(1, backlog.indexRecords()),
                ms(mr.scanLatency(), 0.5),
                ms(mr.scanLatency(), 0.99)));
    }

    /** Append latency at a fixed rate, with and without injected object-store latency. */
    private void latency() {
        b.append("### Append latency at a fixed rate\n\n");
        b.append(String.format(
                Locale.ROOT,
                "Open loop at %,d appends/s (%.1f MiB/s) over the %d streams, latency per "
                        + "append from the call to its completion, %d s measured. The second column delays every object "
                        + "put and get by a lognormal random time before it is sent. PUT and index-commit latencies are "
                        + "timed by the counting decorators in the same run.\n\n",
                o.rate,
                o.rate * (double) o.entryBytes / MIB,
                o.streams,
                o.latencySeconds));
        b.append("| | no injected latency | injected (p50 ")
                .append(fmt("%.0f", o.injectP50Millis))
                .append(" ms, p99 ")
                .append(fmt("%.0f", o.injectP99Millis))
                .append(" ms) |\n|---|---|---|\n");
        b.append("| appends measured (achieved rate) | ")
                .append(fmt("%,d", plain.append().count()))
                .append(" (")
                .append(fmt("%,.0f", plain.achievedRate()))
                .append("/s) | ")
                .append(fmt("%,d", injected.append().count()))
                .append(" (")
                .append(fmt("%,.0f", injected.achievedRate()))
                .append("/s) |\n");
        latencyRow(b, "append p50", plain.append(), injected.append(), 0.50);
        latencyRow(b, "append p90", plain.append(), injected.append(), 0.90);
        latencyRow(b, "append p99", plain.append(), injected.append(), 0.99);
        latencyRow(b, "append p99.9", plain.append(), injected.append(), 0.999);
        b.append("| append max | ")
                .append(fmt("%.1f ms", plain.append().max() / 1e6))
                .append(" | ")
                .append(fmt("%.1f ms", injected.append().max() / 1e6))
                .append(" |\n");
        b.append("| PUT p50 / p99 (PUTs) | ")
                .append(pair(plain.put()))
                .append(" | ")
                .append(pair(injected.put()))
                .append(" |\n");
        b.append("| index commit p50 / p99 (commits) | ")
                .append(pair(plain.commit()))
                .append(" | ")
                .append(pair(injected.commit()))
                .append(" |\n");
        double sumPlain = flush + ms(plain.put(), 0.99) + ms(plain.commit(), 0.99);
        double sumInjected = flush + ms(injected.put(), 0.99) + ms(injected.commit(), 0.99);
        b.append("| ")
                .append(sumLabel)
                .append(" | ")
                .append(fmt("%.1f ms", sumPlain))
                .append(" | ")
                .append(fmt("%.1f ms", sumInjected))
                .append(" |\n");
        b.append("| append p99 / that sum | ")
                .append(fmt("%.2f", ms(plain.append(), 0.99) / sumPlain))
                .append(" | ")
                .append(fmt("%.2f", ms(injected.append(), 0.99) / sumInjected))
                .append(" |\n");
        b.append("| appends failed | ")
                .append(plain.failures())
                .append(" | ")
                .append(injected.failures())
                .append(" |\n\n");
        b.append(String.format(
                Locale.ROOT,
                "Injected delay, lognormal with median %.0f ms and sigma ln(%.0f/%.0f)/2.326: "
                        + "1,000,000 draws give p50 %.1f ms, p90 %.1f ms, p99 %.1f ms, p99.9 %.1f ms; the %,d delays "
                        + "drawn in the run (every put and get, warm-up included) give p50 %.1f ms, p99 %.1f ms.\n\n",
                o.injectP50Millis,
                o.injectP99Millis,
                o.injectP50Millis,
                ms(injectedLarge, 0.5),
                ms(injectedLarge, 0.9),
                ms(injectedLarge, 0.99),
                ms(injectedLarge, 0.999),
                injectedInRun.count(),
                ms(injectedInRun, 0.5),
                ms(injectedInRun, 0.99)));
    }

    /** PUTs per second by rate, and one append at a time with each flush policy. */
    private void oneAtATime() {
        b.append("### PUTs per second by append rate\n\n");
        b.append("The cost of lower latency: the same open-loop load over the streams at three rates (the 2,000/s "
                + "run is the one above), with the writer's default flush policy. WAL object PUTs are counted by the "
                + "decorator around the object store.\n\n");
        b.append("""
                | appends/s | append p50 | append p99 | PUT p99 + commit p99 | WAL PUTs/s | mean WAL object |
                |---|---|---|---|---|---|
                """);
        List<LatencyRun> byRate = new ArrayList<>(lowRates);
        byRate.add(plain);
        for (LatencyRun lr : byRate) {
            b.append("| ")
                    .append(fmt("%,d", lr.rate()))
                    .append(" | ")
                    .append(fmt("%.1f ms", ms(lr.append(), 0.5)))
                    .append(" | ")
                    .append(fmt("%.1f ms", ms(lr.append(), 0.99)))
                    .append(" | ")
                    .append(fmt("%.1f ms", ms(lr.put(), 0.99) + ms(lr.commit(), 0.99)))
                    .append(" | ")
                    .append(fmt("%.1f", lr.puts() / lr.seconds()))
                    .append(" | ")
                    .append(fmt("%.1f KiB", lr.payloadBytes() / 1024.0 / Math.max(1, lr.puts())))
                    .append(" |\n");
        }
        b.append("\n### One append at a time\n\n");
        b.append(String.format(
                Locale.ROOT,
                "One stream, one %d-byte append at a time, each waited for before the "
                        + "next (a synchronous producer), %d s measured after 1 s; the writer's flush policy `adaptive` "
                        + "(the default) and `deadline` (the fixed %d ms flush deadline of before, "
                        + "`lakestream.writer.flushPolicy=deadline`) alternate on two instances over the same stores, "
                        + "%d runs each; then once each with the injected object-store latency above.\n\n",
                o.entryBytes,
                o.sequentialSeconds,
                w.flushDelay().toMillis(),
                o.sequentialReps));
        b.append("""
                | run | policy | appends/s | append p50 | append p99 | PUT p50 / p99 | commit p50 / p99 | WAL PUTs/s |
                |---|---|---|---|---|---|---|---|
                """);
        List<SequentialAppends.Run> all = new ArrayList<>(sequential);
        all.addAll(sequentialInjected);
        for (int i = 0; i < all.size(); i++) {
            SequentialAppends.Run sr = all.get(i);
            sequentialRow(i < sequential.size() ? String.valueOf(i / 2 + 1) : "injected", sr);
        }
        double adaptive = median(
                sequential.stream().filter(x -> x.policy().equals("adaptive")).toList(),
                SequentialAppends.Run::appendsPerSecond);
        double deadline = median(
                sequential.stream().filter(x -> x.policy().equals("deadline")).toList(),
                SequentialAppends.Run::appendsPerSecond);
        List<SequentialAppends.Run> adaptiveRuns =
                sequential.stream().filter(x -> x.policy().equals("adaptive")).toList();
        double p50 = median(adaptiveRuns, x -> ms(x.append(), 0.5));
        double floor = median(adaptiveRuns, x -> ms(x.put(), 0.5) + ms(x.commit(), 0.5));
        b.append(String.format(
                Locale.ROOT,
                "%nMedians without injected latency: adaptive %,.1f appends/s, deadline "
                        + "%,.1f appends/s (**%.1f times** as many); adaptive append p50 %.1f ms against PUT p50 + "
                        + "commit p50 %.1f ms (ratio **%.2f**).%n%n",
                adaptive,
                deadline,
                adaptive / deadline,
                p50,
                floor,
                p50 / floor));
    }

    /** The embedded pair: one append at a time with each policy, and the metadata store's group commit. */
    private void embeddedPair() {
        b.append("### One append at a time on the embedded pair\n\n");
        b.append(String.format(
                Locale.ROOT,
                "What the embedded quickstart broker runs on: `FileSystemObjectStore` "
                        + "and `EmbeddedMetadataStore` (RocksDB) in a new temporary directory on the machine's disk, "
                        + "both fsyncing (their defaults), in the benchmark JVM; the writer's PUT-rate cap at %d/s, its "
                        + "default on the filesystem store. One stream, one append at a time as above, `adaptive` and "
                        + "`deadline` alternating on two instances over the same stores, %d runs each of %d s.%n%n",
                WalWriterConfig.FILESYSTEM_MAX_PUTS_PER_SECOND,
                o.sequentialReps,
                o.sequentialSeconds));
        b.append("""
                | run | policy | appends/s | append p50 | append p99 | PUT p50 / p99 | commit p50 / p99 | PUTs/s |
                |---|---|---|---|---|---|---|---|
                """);
        List<SequentialAppends.Run> runs = embedded.sequential();
        for (int i = 0; i < runs.size(); i++) {
            sequentialRow(String.valueOf(i / 2 + 1), runs.get(i));
        }
        double adaptive = median(
                runs.stream().filter(x -> x.policy().equals("adaptive")).toList(),
                SequentialAppends.Run::appendsPerSecond);
        double deadline = median(
                runs.stream().filter(x -> x.policy().equals("deadline")).toList(),
                SequentialAppends.Run::appendsPerSecond);
        LatencyRun f = embedded.fixedRate();
        b.append(String.format(
                Locale.ROOT,
                "%nMedians: adaptive %,.1f appends/s (%.1f ms each), deadline %,.1f "
                        + "appends/s (%.1f ms each): **%.1f times** as many. A quickstart's `pulsar-client produce -n "
                        + "200` (synchronous sends) pays about this per message plus the broker's own work.%n%n",
                adaptive,
                1000 / adaptive,
                deadline,
                1000 / deadline,
                adaptive / deadline));
        b.append(String.format(
                Locale.ROOT,
                "Group commit of the embedded metadata store, at %,d appends/s over %d "
                        + "streams on the same pair (%d s measured, adaptive policy): append p50 %.1f ms, p99 %.1f ms; "
                        + "%.1f WAL PUTs/s; %,.0f index commits/s against %,.0f RocksDB WAL fsyncs/s (**%.1f commits "
                        + "per fsync**; before the group commit, one fsync per commit).%n%n",
                f.rate(),
                o.streams,
                (int) f.seconds(),
                ms(f.append(), 0.5),
                ms(f.append(), 0.99),
                f.puts() / f.seconds(),
                embedded.commitsPerSecond(),
                embedded.fsyncsPerSecond(),
                embedded.commitsPerSecond() / Math.max(1e-9, embedded.fsyncsPerSecond())));
    }

    private void sequentialRow(String run, SequentialAppends.Run sr) {
        b.append("| ")
                .append(run)
                .append(" | ")
                .append(sr.policy())
                .append(" | ")
                .append(fmt("%,.1f", sr.appendsPerSecond()))
                .append(" | ")
                .append(fmt("%.1f ms", ms(sr.append(), 0.5)))
                .append(" | ")
                .append(fmt("%.1f ms", ms(sr.append(), 0.99)))
                .append(" | ")
                .append(fmt("%.1f", ms(sr.put(), 0.5)))
                .append(" / ")
                .append(fmt("%.1f ms", ms(sr.put(), 0.99)))
                .append(" | ")
                .append(fmt("%.1f", ms(sr.commit(), 0.5)))
                .append(" / ")
                .append(fmt("%.1f ms", ms(sr.commit(), 0.99)))
                .append(" | ")
                .append(fmt("%.1f", sr.putsPerSecond()))
                .append(" |\n");
    }

    /** Requests per GiB and per WAL object. */
    private void requests() {
        b.append("### Requests\n\n");
        b.append("Counted by decorators around both stores during the measured windows. Metadata writes are every "
                + "put and delete; in these runs they are all index commits (one sequence-key put per stream per "
                + "WAL object).\n\n");
        b.append("| | saturation (median run) | fixed rate | fixed rate, injected latency |\n|---|---|---|---|\n");
        b.append("| WAL object PUTs per GiB of payload | ")
                .append(fmt("%,.0f", mw.putsPerGib()))
                .append(" | ")
                .append(fmt("%,.0f", plain.putsPerGib()))
                .append(" | ")
                .append(fmt("%,.0f", injected.putsPerGib()))
                .append(" |\n");
        b.append("| metadata writes per WAL object | ")
                .append(fmt("%.1f", mw.metadataWritesPerObject()))
                .append(" | ")
                .append(fmt("%.1f", plain.metadataWritesPerObject()))
                .append(" | ")
                .append(fmt("%.1f", injected.metadataWritesPerObject()))
                .append(" |\n");
        b.append("| mean WAL object size | ")
                .append(fmt("%.2f MiB", mw.meanObjectBytes() / MIB))
                .append(" | ")
                .append(fmt("%.0f KiB", plain.payloadBytes() / 1024.0 / Math.max(1, plain.puts())))
                .append(" | ")
                .append(fmt("%.0f KiB", injected.payloadBytes() / 1024.0 / Math.max(1, injected.puts())))
                .append(" |\n\n");
    }

    /** Busy cores per process and phase, and the busiest threads. */
    private void cpu() {
        b.append("### CPU\n\n");
        b.append("Busy cores (1.00 = one core fully used) averaged over each measured window, from the processes' CPU "
                + "time; medians over the runs for the throughput phases. \"Other processes\" is the rest of the "
                + "machine's busy time (`/proc/stat`): work that was not ours. GC pauses are the bench JVM's "
                + "stop-the-world time per second.\n\n");
        b.append("| phase | bench JVM | S3Proxy | Oxia | total (of ")
                .append(m.cores())
                .append(") | other processes | bench GC pauses (ms/s) |\n")
                .append("|---|---|---|---|---|---|---|\n");
        cpuRow(b, "raw PUT", raws.stream().map(RawRun::cpu).toList());
        cpuRow(b, "writer append", writers.stream().map(WriterRun::cpu).toList());
        cpuRow(b, "catch-up read", reads.stream().map(ReadRun::cpu).toList());
        cpuRow(b, "raw ranged GET", rawGets.stream().map(RawRun::cpu).toList());
        cpuRow(b, "fixed-rate latency", List.of(plain.cpu()));
        cpuRow(b, "fixed-rate latency, injected", List.of(injected.cpu()));
        b.append("\nBusiest threads of the bench JVM (busy cores; numbers in names folded to #) during the median "
                        + "writer run: ")
                .append(mw.cpu().topThreads(8))
                .append("; during the median catch-up read: ")
                .append(mr.cpu().topThreads(8))
                .append(".\n\n");
    }

    /** Statements read off this run's numbers. */
    private void reading() {
        b.append("### Reading the figures\n\n");
        b.append("Statements generated from this run's numbers (no interpretation beyond them):\n\n");
        double writerCpu = median(writers, x -> x.cpu().total());
        double writerOthers = median(writers, x -> x.cpu().others());
        double rawCpu = median(raws, x -> x.cpu().total());
        b.append(String.format(
                Locale.ROOT,
                "- Writer runs: the benchmark JVM, S3Proxy and Oxia kept %.2f of %d cores "
                        + "busy and other processes %.2f (raw PUT runs: %.2f)%s\n",
                writerCpu,
                m.cores(),
                writerOthers,
                rawCpu,
                writerCpu + writerOthers >= 0.9 * m.cores()
                        ? ": the machine's CPU was the limit, so the writer figure measures how much CPU the write "
                                + "path needs per byte as much as the stores' speed."
                        : "; the CPU was not saturated."));
        b.append(String.format(
                Locale.ROOT,
                "- CPU per 100 MiB/s: S3Proxy %.2f cores for raw PUTs, %.2f for writer "
                        + "appends; the benchmark JVM %.2f for raw PUTs, %.2f for writer appends (this includes "
                        + "generating the appends).\n",
                perHundred(raws, x -> x.cpu().processes().get(CpuMeter.S3PROXY), RawRun::mibPerSecond),
                perHundred(writers, x -> x.cpu().processes().get(CpuMeter.S3PROXY), WriterRun::mibPerSecond),
                perHundred(raws, x -> x.cpu().processes().get(CpuMeter.BENCH), RawRun::mibPerSecond),
                perHundred(writers, x -> x.cpu().processes().get(CpuMeter.BENCH), WriterRun::mibPerSecond)));
        b.append(String.format(
                Locale.ROOT,
                "- In the writer runs the benchmark JVM's GC threads used %.2f cores and "
                        + "its JIT compiler threads %.2f (raw PUT runs: %.2f and %.2f); GC pauses took %.0f ms per "
                        + "second (raw PUT runs: %.0f).\n",
                median(writers, x -> x.cpu().threadGroups().getOrDefault(CpuMeter.JVM_GC, 0.0)),
                median(writers, x -> x.cpu().threadGroups().getOrDefault(CpuMeter.JVM_JIT, 0.0)),
                median(raws, x -> x.cpu().threadGroups().getOrDefault(CpuMeter.JVM_GC, 0.0)),
                median(raws, x -> x.cpu().threadGroups().getOrDefault(CpuMeter.JVM_JIT, 0.0)),
                median(writers, x -> x.cpu().gcPauseMillisPerSecond()),
                median(raws, x -> x.cpu().gcPauseMillisPerSecond())));
        b.append(String.format(
                Locale.ROOT,
                "- Writer PUTs took p50 %.0f ms against %.0f ms for raw PUTs with %d in "
                        + "flight, while the writer had %.1f in flight on average.\n",
                ms(mw.putLatency(), 0.5),
                median(raws, RawRun::p50Millis),
                rawConcurrency,
                mw.meanInFlightPuts()));
        b.append(String.format(
                Locale.ROOT,
                "- Catch-up reads: %.2f of the raw ranged-GET rate at %d in flight; they "
                        + "issued %.1f GETs and fetched %.2f bytes per payload byte (raw ranged GETs: %.1f GETs per MiB, "
                        + "1.00 byte per byte); the benchmark JVM's GC threads used %.2f cores and GC pauses took %.0f "
                        + "ms/s (raw ranged GET runs: %.2f cores, %.0f ms/s).\n",
                median(readRatios, x -> x),
                s3Concurrency,
                (mr.gets() + mr.rangeGets()) / (mr.bytes() / MIB),
                mr.bytesFetched() / (double) mr.bytes(),
                MIB / RAW_GET_RANGE,
                median(reads, x -> x.cpu().threadGroups().getOrDefault(CpuMeter.JVM_GC, 0.0)),
                median(reads, x -> x.cpu().gcPauseMillisPerSecond()),
                median(rawGets, x -> x.cpu().threadGroups().getOrDefault(CpuMeter.JVM_GC, 0.0)),
                median(rawGets, x -> x.cpu().gcPauseMillisPerSecond())));
        if (flush > 0) {
            b.append(String.format(
                    Locale.ROOT,
                    "- At %,d appends/s an append waits for its batch to be sealed (up to "
                            + "the %.0f ms flush delay after the batch's first append, so about half of it on average), "
                            + "then for the PUT, then for its stream's index commit: p50 %.1f ms, p99 %.1f ms.\n",
                    o.rate,
                    flush,
                    ms(plain.append(), 0.5),
                    ms(plain.append(), 0.99)));
        } else {
            b.append(String.format(
                    Locale.ROOT,
                    "- At %,d appends/s an append waits for the PUT in flight, if any (its "
                            + "batch fills meanwhile), then for its own batch's PUT (no sooner than 1 s / %d after the "
                            + "previous one), then for its stream's index commit: p50 %.1f ms, p99 %.1f ms, with %.1f "
                            + "PUTs/s.\n",
                    o.rate,
                    w.maxPutsPerSecond(),
                    ms(plain.append(), 0.5),
                    ms(plain.append(), 0.99),
                    plain.puts() / plain.seconds()));
        }
    }

    /** One stream read as a dispatcher reads it, against injected latency, with read-ahead off and on. */
    private void dispatch() {
        b.append("### One stream read as a broker's dispatcher reads it\n\n");
        b.append(String.format(
                Locale.ROOT,
                "One stream of %,d entries (%.0f MiB in %d WAL objects, each object "
                        + "holding only this stream), written at full speed, then read from offset 0 to its end by a "
                        + "fresh instance, one read of at most %d entries after another, as a broker's dispatcher "
                        + "reads a topic for a subscription catching up (`dispatcherMaxReadBatchSize`), with every "
                        + "object GET delayed as in the injected latency run below (lognormal, p50 %.0f ms, p99 %.0f "
                        + "ms). Read-ahead off (`lakestream.reader.readAheadSize=0`) and at its default (%s) "
                        + "alternate, %d times each; both check every entry's offset and bytes and count the entries "
                        + "read against those written (a shortfall fails the benchmark).\n\n",
                dispatchSet.ends()[0],
                dispatchSet.ends()[0] * (double) o.entryBytes / MIB,
                dispatchSet.objects(),
                CatchUpRead.DISPATCH_MAX_ENTRIES,
                o.injectP50Millis,
                o.injectP99Millis,
                size(r.readAheadBytes()),
                dispatchOff.size()));
        List<Double> speedUps = new ArrayList<>();
        List<Double> mismatches = new ArrayList<>();
        for (int i = 0; i < dispatchOff.size(); i++) {
            speedUps.add(dispatchOn.get(i).mibPerSecond() / dispatchOff.get(i).mibPerSecond());
            mismatches.add(
                    (double) dispatchOff.get(i).mismatches() + dispatchOn.get(i).mismatches());
        }
        b.append("| | ");
        for (int i = 1; i <= dispatchOff.size(); i++) {
            b.append("run ").append(i).append(" | ");
        }
        b.append("median |\n|---|")
                .append("---|".repeat(dispatchOff.size() + 1))
                .append("\n");
        row(b, "Read-ahead off (MiB/s)", dispatchOff, DispatchRun::mibPerSecond, "%.1f");
        row(b, "Read-ahead on (MiB/s)", dispatchOn, DispatchRun::mibPerSecond, "%.1f");
        row(b, "On / off", speedUps, x -> x, "%.1f");
        row(b, "Reads", dispatchOn, x -> x.reads(), "%,.0f");
        row(b, "Ranged GETs, read-ahead off", dispatchOff, x -> x.rangeGets(), "%,.0f");
        row(b, "Ranged GETs, read-ahead on", dispatchOn, x -> x.rangeGets(), "%,.0f");
        row(
                b,
                "Bytes fetched per payload byte, read-ahead on",
                dispatchOn,
                x -> x.bytesFetched() / (double) x.bytes(),
                "%.2f");
        row(
                b,
                "Index records scanned per read, read-ahead on",
                dispatchOn,
                x -> x.indexRecordsScanned() / (double) x.reads(),
                "%.1f");
        row(b, "Mismatches (off + on)", mismatches, x -> x, "%.0f");
        b.append("\n");
    }

    private static <T> void row(StringBuilder b, String label, List<T> runs, ToDoubleFunction<T> f, String format) {
        b.append("| ").append(label).append(" | ");
        for (T r : runs) {
            b.append(fmt(format, f.applyAsDouble(r))).append(" | ");
        }
        b.append("**").append(fmt(format, median(runs, f))).append("** |\n");
    }

    private static void latencyRow(StringBuilder b, String label, Histogram plain, Histogram injected, double q) {
        b.append("| ")
                .append(label)
                .append(" | ")
                .append(fmt("%.1f ms", ms(plain, q)))
                .append(" | ")
                .append(fmt("%.1f ms", ms(injected, q)))
                .append(" |\n");
    }

    private static String pair(Histogram h) {
        return fmt("%.1f", ms(h, 0.5)) + " / " + fmt("%.1f ms", ms(h, 0.99)) + " (" + fmt("%,d", h.count()) + ")";
    }

    private static void cpuRow(StringBuilder b, String phase, List<CpuMeter.Usage> usages) {
        b.append("| ").append(phase).append(" | ");
        for (String p : CpuMeter.names()) {
            b.append(fmt("%.2f", median(usages, u -> u.processes().get(p)))).append(" | ");
        }
        b.append(fmt("%.2f", median(usages, CpuMeter.Usage::total)))
                .append(" | ")
                .append(fmt("%.2f", median(usages, CpuMeter.Usage::others)))
                .append(" | ")
                .append(fmt("%.0f", median(usages, CpuMeter.Usage::gcPauseMillisPerSecond)))
                .append(" |\n");
    }

    private static <T> double perHundred(List<T> runs, ToDoubleFunction<T> cores, ToDoubleFunction<T> mibPerSecond) {
        return median(runs, r -> cores.applyAsDouble(r) / mibPerSecond.applyAsDouble(r) * 100);
    }

    /** The S3Proxy version from its jar's manifest (the jar the test kit points at), or "(version unknown)". */
    private static String s3ProxyVersion() {
        String jar = System.getenv("S3PROXY_JAR");
        if (jar == null || jar.isBlank()) {
            Properties p = new Properties();
            try (InputStream in = CoreLogReport.class.getResourceAsStream("/lakestream-testkit.properties")) {
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
}
