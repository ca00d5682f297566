package dev.lakestream.tests.bench;

import dev.lakestream.core.Lakestream;
import dev.lakestream.core.StreamLog;
import dev.lakestream.core.catalog.StreamInfo;
import dev.lakestream.core.compaction.CompactionConfig;
import dev.lakestream.core.compaction.CompactionService;
import dev.lakestream.core.config.ConfigReader;
import dev.lakestream.core.log.LogEntry;
import dev.lakestream.core.metrics.CompactionMetrics;
import dev.lakestream.core.metrics.LakestreamMetrics.ObjectStoreOp;
import dev.lakestream.core.metrics.OperationMetrics;
import dev.lakestream.core.objectstore.ObjectInfo;
import dev.lakestream.core.objectstore.ObjectListing;
import dev.lakestream.core.objectstore.ObjectStore;
import dev.lakestream.core.segment.SegmentKeys;
import dev.lakestream.testkit.BenchCommandLine;
import dev.lakestream.testkit.BenchmarksDoc;
import dev.lakestream.testkit.RemoteStores;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * What compaction costs and what it buys, on the core log (no broker) over S3Proxy + Oxia from the test kit, the
 * writer at its S3 default of 50 PUTs/s. In one run:
 * <ol>
 *   <li>writes a <b>big</b> stream alone, and a <b>small</b> stream round-robin among {@code --others} streams (each
 *       entry of the small one lands in another WAL object, as a quiet topic's do on a busy broker);
 *   <li>reads both back from the WAL on a fresh instance (a cold cache): throughput, GETs, bytes fetched;
 *   <li>appends at a fixed rate to other streams in windows of {@code --latency-seconds}, compaction off and on in
 *       turn (three each; in the "on" ones the compactor, at its defaults: 128 MiB segments, 64 MiB/s, 10 PUTs/s, delay
 *       0, compacts the written streams), then compacts the rest: append latency both ways (medians of the windows'
 *       p99); the compactor's CPU (its threads') and PUTs per GiB compacted;
 *   <li>reads both back from their segments on a fresh instance; then GETs the big stream's segment objects raw, in
 *       ranges of one row group (8 MiB), one at a time: catch-up / raw; five rounds of both, medians reported;
 *   <li>{@code --many} streams at 0.33 entries/s each with compaction every 5 s after a 10 s delay, the largest
 *       compaction lag over the streams sampled every 5 s.
 * </ol>
 * Every read checks each entry (stream, sequence number, count): a shortfall prints LOST and exits 1 without writing
 * the doc.
 */
public final class CompactionBenchmark {

    static final String HEADING = "## Compaction: its cost, catch-up from segments";
    private static final int ENTRY = 4096;
    private static final int SMALL_ENTRY = 1024;
    private static final long ROW_GROUP = 8L << 20;
    private static final int CATCH_UP_ROUNDS = 5;
    private static final int LATENCY_ROUNDS = 3;

    @Command(name = "CompactionBenchmark", showDefaultValues = true)
    static final class Options {
        @Mixin
        DocOptions out = new DocOptions("bin/bench-compaction");

        @Option(names = "--big-mib", paramLabel = "MIB", description = "the big stream's payload")
        int bigMib = 512;

        @Option(names = "--others", paramLabel = "N", description = "streams the small one is written among")
        int others = 1000;

        @Option(names = "--small-entries", paramLabel = "N", description = "entries of 1 KiB per small stream")
        int smallEntries = 64;

        @Option(names = "--latency-seconds", paramLabel = "S")
        int latencySeconds = 20;

        @Option(names = "--many", paramLabel = "N", description = "streams of the many-streams run (0: skip it)")
        int many = 3000;

        @Option(names = "--many-seconds", paramLabel = "S")
        int manySeconds = 120;

        /** Small sizes, a minute or two, the report printed only. */
        @Option(names = "--quick")
        void quick(boolean on) {
            if (on) {
                out.doc = null;
                bigMib = 64;
                others = 100;
                latencySeconds = 5;
                many = 300;
                manySeconds = 30;
            }
        }
    }

    /** A catch-up read of one stream: what it got and what it cost. */
    record CatchUp(long entries, long bytes, double seconds, long gets, long getBytes) {
        double mibPerSecond() {
            return bytes / seconds / (1 << 20);
        }

        double getsPerGib() {
            return gets / (bytes / (double) (1L << 30));
        }
    }

    /** Append latency at a fixed rate, in microseconds. */
    record Latency(long appends, double p50, double p99, double p999, double max) {}

    private CompactionBenchmark() {}

    public static void main(String[] args) throws Exception {
        Options o = BenchCommandLine.parseOrExit(new Options(), args);
        long began = System.nanoTime();
        String loadBefore = BrokerBenchmark.loadAverage();
        StringBuilder table = new StringBuilder();
        List<String> lost = new ArrayList<>();
        try (RemoteStores stores = RemoteStores.start("bench-compaction")) {
            Properties props = new Properties();
            props.putAll(stores.lakestreamSettings());
            props.put("lakestream.objectStore", "s3");
            props.put("lakestream.metadataStore", "oxia");
            props.put("lakestream.metadata.root", "/bench-compaction");
            props.put("lakestream.writer.maxPutsPerSecond", "50");
            Report r = new Report();
            try (Lakestream log = Lakestream.open(ConfigReader.of(props))) {
                progress("writing the big stream (%d MiB) and a small one among %d", o.bigMib, o.others);
                StreamInfo big = create(log, "big");
                long bigEntries = ((long) o.bigMib << 20) / ENTRY;
                append(log, List.of(big), bigEntries, ENTRY, 0);
                List<StreamInfo> crowd = new ArrayList<>();
                StreamInfo small = create(log, "small");
                crowd.add(small);
                for (int i = 0; i < o.others; i++) {
                    crowd.add(create(log, "other-" + i));
                }
                // Paced as a busy broker's traffic (5 MB/s, at 50 PUTs/s objects of about 100 KB): each object then
                // holds
                // about one entry of the small stream, as a quiet topic's entries lie on such a broker.
                append(log, crowd, o.smallEntries, SMALL_ENTRY, 5_000);
                r.walObjects = count(log.objectStore(), "", false);

                progress("catch-up from the WAL, cold");
                try (Lakestream cold = Lakestream.open(ConfigReader.of(props))) {
                    r.walBig = catchUp(cold, big, bigEntries, ENTRY, lost, "big, WAL");
                    r.walSmall = catchUp(cold, small, o.smallEntries, SMALL_ENTRY, lost, "small, WAL");
                }

                List<StreamInfo> paced = new ArrayList<>();
                for (int i = 0; i < 100; i++) {
                    paced.add(create(log, "paced-" + i));
                }
                List<Long> compacted = new ArrayList<>();
                crowd.forEach(s -> compacted.add(s.id()));
                compacted.add(big.id());
                CompactionConfig config = CompactionConfig.DEFAULT
                        .withDelay(java.time.Duration.ZERO)
                        .withInterval(java.time.Duration.ofSeconds(1));
                CompactionMetrics cm = log.metrics().compaction();
                long segmentsBefore = cm.segments() + cm.merges();
                long payloadBefore = cm.payloadBytes();
                long segmentBytesBefore = cm.segmentBytes();
                // Windows of appends with compaction off and on in turn: the machine's drift falls on both sides, and
                // the medians are compared. The compactor runs only in the "on" windows (a service each), then on
                // until all is compacted; its threads' CPU is summed over the services.
                double compacting = 0;
                for (int w = 1; w <= LATENCY_ROUNDS; w++) {
                    progress(
                            "append latency, compaction off, window %d of %d, %d s",
                            w, LATENCY_ROUNDS, o.latencySeconds);
                    r.latencyOff.add(paced(log, paced, o.latencySeconds, null));
                    progress(
                            "append latency, compaction on, window %d of %d, %d s",
                            w, LATENCY_ROUNDS, o.latencySeconds);
                    long windowStart = System.nanoTime();
                    try (CompactionService service = CompactionService.start(log, config, () -> compacted)) {
                        var unused = service.runOnce();
                        r.latencyOn.add(paced(log, paced, o.latencySeconds, null));
                        if (!allCompacted(cm, compacted)) {
                            r.onWindowsCompacting++;
                        }
                        r.compactorCpu += compactorCpuSeconds();
                    }
                    compacting += (System.nanoTime() - windowStart) / 1e9;
                }
                progress("compacting the rest");
                long restStart = System.nanoTime();
                try (CompactionService service = CompactionService.start(log, config, () -> compacted)) {
                    var unused = service.runOnce();
                    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(20);
                    while (!allCompacted(cm, compacted) && System.nanoTime() < deadline) {
                        Thread.sleep(500);
                    }
                    r.compactorCpu += compactorCpuSeconds();
                    r.compactedAll = allCompacted(cm, compacted);
                }
                r.compactSeconds = compacting + (System.nanoTime() - restStart) / 1e9;
                r.compactedBytes = cm.payloadBytes() - payloadBefore;
                r.segmentBytes = cm.segmentBytes() - segmentBytesBefore;
                r.segmentUploads = cm.segments() + cm.merges() - segmentsBefore;
                r.segments = count(log.objectStore(), "segments/", true);
                r.bigSegments = listKeys(log.objectStore(), SegmentKeys.streamPrefix(big.id()));

                // Rounds of (segments, raw GETs) one after the other, each on a fresh instance: a shared machine's
                // noise falls on both sides of a round, and the medians are reported.
                for (int round = 1; round <= CATCH_UP_ROUNDS; round++) {
                    progress("catch-up from segments, cold, round %d of %d", round, CATCH_UP_ROUNDS);
                    try (Lakestream cold = Lakestream.open(ConfigReader.of(props))) {
                        r.segBigRounds.add(catchUp(cold, big, bigEntries, ENTRY, lost, "big, segments"));
                        if (round == 1) {
                            r.segSmall = catchUp(cold, small, o.smallEntries, SMALL_ENTRY, lost, "small, segments");
                        }
                        r.rawRounds.add(rawRangedGets(cold.objectStore(), r.bigSegments));
                    }
                }
            }
            if (o.many > 0) {
                progress("%d streams at 0.33 entries/s, compaction every 5 s after 10 s, %d s", o.many, o.manySeconds);
                props.put("lakestream.metadata.root", "/bench-compaction-many");
                try (Lakestream log = Lakestream.open(ConfigReader.of(props))) {
                    r.manyLag = many(log, o.many, o.manySeconds);
                }
            }
            table.append(r.render(o));
        }
        String report = header(o, (System.nanoTime() - began) / 60e9, loadBefore) + table;
        System.out.println(report);
        if (!lost.isEmpty()) {
            System.out.println("LOST: " + String.join("; ", lost));
            System.exit(1);
        }
        if (o.out.doc != null) {
            BenchmarksDoc.writeSection(o.out.doc, HEADING, report);
            System.out.println("[bench-compaction] wrote " + o.out.doc);
        }
        System.exit(0);
    }

    // ---- loads ----

    private static StreamInfo create(Lakestream log, String name) {
        StreamInfo info = log.catalog().create("bench", name, Map.of()).join();
        log.stream(info).fence().join();
        return info;
    }

    /**
     * {@code entries} entries of {@code size} to each stream, round-robin, at most 8,192 in flight, at most
     * {@code perSecond} a second (0: as fast as the writer takes them).
     */
    private static void append(Lakestream log, List<StreamInfo> streams, long entries, int size, int perSecond)
            throws Exception {
        Semaphore window = new Semaphore(8192);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<StreamLog> logs = streams.stream().map(log::stream).toList();
        Random random = new Random(20261207L);
        byte[] filler = new byte[size - 16];
        long start = System.nanoTime();
        long n = 0;
        for (long seq = 0; seq < entries; seq++) {
            for (int i = 0; i < logs.size(); i++, n++) {
                if (perSecond > 0) {
                    long wait = start + n * 1_000_000_000L / perSecond - System.nanoTime();
                    if (wait > 0) {
                        TimeUnit.NANOSECONDS.sleep(wait);
                    }
                }
                window.acquire();
                random.nextBytes(filler); // random bytes: ZSTD must not make segments look smaller than data is
                ByteBuf b = PooledByteBufAllocator.DEFAULT.directBuffer(size, size);
                b.writeLong(streams.get(i).id()).writeLong(seq).writeBytes(filler);
                logs.get(i).append(1, b).whenComplete((v, e) -> {
                    window.release();
                    if (e != null) {
                        failure.compareAndSet(null, e);
                    }
                });
            }
            if (failure.get() != null) {
                throw new IllegalStateException("an append failed", failure.get());
            }
        }
        window.acquire(8192);
        if (failure.get() != null) {
            throw new IllegalStateException("an append failed", failure.get());
        }
    }

    /** Reads the stream from its start as a dispatcher does (100 entries, 5 MB a read), checking every entry. */
    private static CatchUp catchUp(
            Lakestream log, StreamInfo info, long expected, int size, List<String> lost, String what) {
        StreamLog stream = log.stream(info);
        OperationMetrics gets = log.metrics().objectStore(ObjectStoreOp.GET);
        long getsBefore = gets.requests();
        long getBytesBefore = gets.bytes();
        long start = System.nanoTime();
        long at = stream.startOffset().join();
        long end = stream.endOffset().join();
        long entries = 0;
        long bytes = 0;
        while (at < end) {
            List<LogEntry> batch = stream.read(at, 100, 5_000_000).join();
            if (batch.isEmpty()) {
                break;
            }
            for (LogEntry e : batch) {
                try {
                    ByteBuf p = e.payload();
                    if (p.readableBytes() != size
                            || p.getLong(p.readerIndex()) != info.id()
                            || p.getLong(p.readerIndex() + 8) != entries) {
                        lost.add(what + ": entry at offset " + e.offset() + " is not entry " + entries);
                        return new CatchUp(entries, bytes, (System.nanoTime() - start) / 1e9, 0, 0);
                    }
                    bytes += p.readableBytes();
                    entries++;
                    at = e.endOffset();
                } finally {
                    e.payload().release();
                }
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        if (entries != expected) {
            lost.add(what + ": read " + entries + " of " + expected + " entries");
        }
        return new CatchUp(entries, bytes, seconds, gets.requests() - getsBefore, gets.bytes() - getBytesBefore);
    }

    /**
     * 1,000 appends/s of 1 KiB over {@code streams} for {@code seconds}; each append's latency from its call to its
     * acknowledgement. {@code tick} runs every 100 ms.
     */
    private static Latency paced(Lakestream log, List<StreamInfo> streams, int seconds, Runnable tick)
            throws Exception {
        Histogram h = new Histogram(TimeUnit.SECONDS.toMicros(60), 3);
        List<StreamLog> logs = streams.stream().map(log::stream).toList();
        List<CompletableFuture<?>> pending = new ArrayList<>();
        long start = System.nanoTime();
        long n = 0;
        for (long step = 0; step < seconds * 100L; step++) {
            long due = start + step * 10_000_000L;
            long wait = due - System.nanoTime();
            if (wait > 0) {
                TimeUnit.NANOSECONDS.sleep(wait);
            }
            for (int k = 0; k < 10; k++, n++) {
                ByteBuf b = PooledByteBufAllocator.DEFAULT.directBuffer(1024, 1024);
                b.writeZero(1024);
                long t0 = System.nanoTime();
                pending.add(logs.get((int) (n % logs.size())).append(1, b).thenRun(() -> {
                    synchronized (h) {
                        h.recordValue(Math.min(h.getHighestTrackableValue(), (System.nanoTime() - t0) / 1000));
                    }
                }));
            }
            if (tick != null && step % 10 == 0) {
                tick.run();
            }
        }
        CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        synchronized (h) {
            return new Latency(
                    h.getTotalCount(),
                    h.getValueAtPercentile(50),
                    h.getValueAtPercentile(99),
                    h.getValueAtPercentile(99.9),
                    h.getMaxValue());
        }
    }

    /** Streams at 0.33 entries/s each (spread evenly), compacted every 5 s after 10 s: the largest lag every 5 s. */
    private static List<Double> many(Lakestream log, int count, int seconds) throws Exception {
        List<StreamInfo> streams = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            streams.add(create(log, "many-" + i));
        }
        List<Long> ids = streams.stream().map(StreamInfo::id).toList();
        CompactionConfig config = CompactionConfig.DEFAULT
                .withDelay(java.time.Duration.ofSeconds(10))
                .withInterval(java.time.Duration.ofSeconds(5));
        CompactionMetrics cm = log.metrics().compaction();
        List<Double> samples = new ArrayList<>();
        List<StreamLog> logs = streams.stream().map(log::stream).toList();
        AtomicLong failures = new AtomicLong();
        try (CompactionService service = CompactionService.start(log, config, () -> ids)) {
            long start = System.nanoTime();
            long perStep = Math.max(1, Math.round(count / 3.0 / 10)); // 10 steps a second
            long n = 0;
            for (long step = 0; step < seconds * 10L; step++) {
                long due = start + step * 100_000_000L;
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    TimeUnit.NANOSECONDS.sleep(wait);
                }
                for (int k = 0; k < perStep; k++, n++) {
                    ByteBuf b = PooledByteBufAllocator.DEFAULT.directBuffer(1024, 1024);
                    b.writeZero(1024);
                    logs.get((int) (n % logs.size())).append(1, b).whenComplete((v, e) -> {
                        if (e != null) {
                            failures.incrementAndGet();
                        }
                    });
                }
                if (step % 50 == 49) {
                    double worst = cm.lag().values().stream()
                                    .mapToLong(CompactionMetrics.Lag::millis)
                                    .max()
                                    .orElse(0)
                            / 1000.0;
                    samples.add(worst);
                    progress("many streams: %d s, largest compaction lag %.1f s", (step + 1) / 10, worst);
                }
            }
        }
        if (failures.get() > 0) {
            throw new IllegalStateException(failures.get() + " appends failed in the many-streams run");
        }
        return samples;
    }

    /** Whether every stream has reported its lag, and none has bytes left to compact. */
    private static boolean allCompacted(CompactionMetrics cm, List<Long> ids) {
        Map<Long, CompactionMetrics.Lag> lag = cm.lag();
        for (long id : ids) {
            CompactionMetrics.Lag l = lag.get(id);
            if (l == null || l.bytes() > 0) {
                return false;
            }
        }
        return true;
    }

    /** GETs of whole row groups' worth (8 MiB ranges) of the objects, one at a time: what the reader's GETs could do. */
    private static CatchUp rawRangedGets(ObjectStore store, List<ObjectInfo> objects) {
        long start = System.nanoTime();
        long bytes = 0;
        long gets = 0;
        for (ObjectInfo o : objects) {
            for (long at = 0; at < o.size(); at += ROW_GROUP) {
                long length = Math.min(ROW_GROUP, o.size() - at);
                bytes += store.get(o.key(), at, length).join().remaining();
                gets++;
            }
        }
        return new CatchUp(0, bytes, (System.nanoTime() - start) / 1e9, gets, bytes);
    }

    private static List<ObjectInfo> listKeys(ObjectStore store, String prefix) {
        List<ObjectInfo> out = new ArrayList<>();
        String continuation = null;
        do {
            ObjectListing page = store.list(prefix, continuation, 1000).join();
            out.addAll(page.objects());
            continuation = page.continuation();
        } while (continuation != null);
        return out;
    }

    private static long count(ObjectStore store, String prefix, boolean segmentsOnly) {
        return listKeys(store, prefix).stream()
                .filter(i -> !segmentsOnly || i.key().contains("segments/"))
                .count();
    }

    /** CPU seconds of the compactor's threads (its pass thread, and the segment readers' decoders when it merges). */
    private static double compactorCpuSeconds() {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long nanos = 0;
        for (ThreadInfo t : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (t != null && t.getThreadName().startsWith("lakestream-compaction")) {
                long cpu = threads.getThreadCpuTime(t.getThreadId());
                if (cpu > 0) {
                    nanos += cpu;
                }
            }
        }
        return nanos / 1e9;
    }

    private static void progress(String format, Object... args) {
        System.out.printf(Locale.ROOT, "[bench-compaction] " + format + "%n", args);
    }

    // ---- the report ----

    private static String header(Options o, double minutes, String loadBefore) {
        StringBuilder b = new StringBuilder();
        b.append(HEADING).append("\n\n");
        b.append(
                "Written by `dev.lakestream.tests.bench.CompactionBenchmark` (`tests/src/bench/java`): the core log (no "
                        + "broker) on S3Proxy and Oxia from the test kit, the writer at its S3 default (50 PUTs/s), the compactor "
                        + "at its defaults (128 MiB segments, 8 MiB row groups, ZSTD 1, 64 MiB/s, 10 PUTs/s) with delay 0 and a "
                        + "pass every second. Do not edit the figures by hand; run the command again.\n\n");
        b.append(BrokerBenchmark.runLines(o.out.command, minutes, loadBefore, BrokerBenchmark.loadAverage()));
        b.append(String.format(
                Locale.ROOT,
                "- **Workload:** a big stream of %d MiB in %d-byte entries of random bytes, written alone; a small stream "
                        + "of %d entries of 1 KiB written round-robin among %d others like it at 5,000 entries/s (a busy "
                        + "broker's 5 MB/s: at 50 PUTs/s each WAL object holds about one entry of it); catch-up reads from the start as a dispatcher reads (100 entries or "
                        + "5 MB a read, one at a time) on a fresh instance (cold cache), every entry checked; append "
                        + "latency: 1,000 appends/s of 1 KiB over 100 other streams, windows of %d s without compaction "
                        + "and %d s while it runs, in turn, %d of each; many streams: %d streams at 0.33 entries/s of 1 KiB, compaction delay 10 s, "
                        + "a pass every 5 s, %d s.%n%n",
                o.bigMib,
                ENTRY,
                o.smallEntries,
                o.others,
                o.latencySeconds,
                o.latencySeconds,
                LATENCY_ROUNDS,
                o.many,
                o.manySeconds));
        return b.toString();
    }

    /** The figures of one run. */
    static final class Report {
        long walObjects;
        CatchUp walBig;
        CatchUp walSmall;
        final List<Latency> latencyOff = new ArrayList<>();
        final List<Latency> latencyOn = new ArrayList<>();
        int onWindowsCompacting;
        double compactSeconds;
        boolean compactedAll;
        double compactorCpu;
        long compactedBytes;
        long segmentBytes;
        long segmentUploads;
        long segments;
        List<ObjectInfo> bigSegments = List.of();
        final List<CatchUp> segBigRounds = new ArrayList<>();
        CatchUp segSmall;
        final List<CatchUp> rawRounds = new ArrayList<>();
        List<Double> manyLag = List.of();

        /** The round of median throughput. */
        private static CatchUp median(List<CatchUp> rounds) {
            List<CatchUp> sorted = rounds.stream()
                    .sorted(java.util.Comparator.comparingDouble(CatchUp::mibPerSecond))
                    .toList();
            return sorted.get(sorted.size() / 2);
        }

        String render(Options o) {
            CatchUp segBig = median(segBigRounds);
            CatchUp raw = median(rawRounds);
            List<Double> ratios = new ArrayList<>();
            for (int i = 0; i < segBigRounds.size(); i++) {
                ratios.add(segBigRounds.get(i).mibPerSecond() / rawRounds.get(i).mibPerSecond());
            }
            List<Double> sortedRatios = ratios.stream().sorted().toList();
            StringBuilder b = new StringBuilder();
            double gib = compactedBytes / (double) (1L << 30);
            b.append("### Catch-up: WAL vs segments\n\n");
            b.append("| stream | read from | entries | MiB | seconds | MiB/s | GETs | MiB fetched | GETs per GiB |\n");
            b.append("|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
            row(b, "big", "WAL", walBig);
            row(b, "big", "segments (median of " + segBigRounds.size() + " rounds)", segBig);
            row(b, "small (among " + o.others + ")", "WAL", walSmall);
            row(b, "small (among " + o.others + ")", "segments", segSmall);
            b.append(String.format(
                    Locale.ROOT,
                    "| big | raw ranged GETs of its %d segment objects, 8 MiB ranges, one at a time (median of %d rounds)"
                            + " | | %.1f | %.2f | %.1f | %d | %.1f | %.0f |%n%n",
                    bigSegments.size(),
                    rawRounds.size(),
                    raw.bytes() / 1048576.0,
                    raw.seconds(),
                    raw.mibPerSecond(),
                    raw.gets(),
                    raw.getBytes() / 1048576.0,
                    raw.getsPerGib()));
            b.append(String.format(
                    Locale.ROOT,
                    "**Catch-up from segments / raw ranged GETs: %.2f** (median of the rounds' ratios; each round: %s);"
                            + " from segments / from the WAL: %.2f (big), GETs %d -> %d (small: %.1f -> %.1f KiB a"
                            + " GET).%n%n",
                    sortedRatios.get(sortedRatios.size() / 2),
                    ratios.stream()
                            .map(x -> String.format(Locale.ROOT, "%.2f", x))
                            .collect(java.util.stream.Collectors.joining(", ")),
                    segBig.mibPerSecond() / walBig.mibPerSecond(),
                    walSmall.gets(),
                    segSmall.gets(),
                    walSmall.bytes() / 1024.0 / Math.max(1, walSmall.gets()),
                    segSmall.bytes() / 1024.0 / Math.max(1, segSmall.gets())));
            b.append("### Cost of compaction\n\n");
            b.append("| | value |\n|---|---:|\n");
            b.append(String.format(Locale.ROOT, "| WAL objects before compaction | %,d |%n", walObjects));
            b.append(String.format(Locale.ROOT, "| payload compacted | %.1f MiB |%n", compactedBytes / 1048576.0));
            b.append(String.format(Locale.ROOT, "| segment bytes written | %.1f MiB |%n", segmentBytes / 1048576.0));
            b.append(String.format(Locale.ROOT, "| segment objects after | %,d |%n", segments));
            b.append(String.format(
                    Locale.ROOT,
                    "| compacted in | %.1f s%s |%n",
                    compactSeconds,
                    compactedAll ? "" : " (not finished: lag left)"));
            b.append(String.format(
                    Locale.ROOT,
                    "| compactor CPU (its threads) | %.1f s, **%.1f s per GiB** |%n",
                    compactorCpu,
                    compactorCpu / gib));
            // At most: an upload is a multipart upload (create, a part per 8 MiB, complete), except one of up to 8 MiB,
            // which is one PUT; the sizes of the uploads merged away are not known here, so this counts every one as
            // multipart.
            long requests = 2 * segmentUploads + (segmentBytes + (8L << 20) - 1) / (8L << 20);
            b.append(String.format(
                    Locale.ROOT,
                    "| segment uploads (written and merged) | %,d |%n"
                            + "| S3 requests for them, at most (create + one per 8 MiB part + complete; one PUT for an upload of up to 8 MiB) | %,d, **%.0f per GiB"
                            + " compacted** |%n%n",
                    segmentUploads,
                    requests,
                    requests / gib));
            b.append("### Append latency, compaction off vs on (same run, windows in turn)\n\n");
            b.append(
                    "| compaction | window | appends | p50 ms | p99 ms | p99.9 ms | max ms |\n|---|---:|---:|---:|---:|---:|---:|\n");
            for (int i = 0; i < latencyOff.size(); i++) {
                lat(b, "off", i + 1, latencyOff.get(i));
                lat(b, "on", i + 1, latencyOn.get(i));
            }
            double offP99 = medianP99(latencyOff);
            double onP99 = medianP99(latencyOn);
            b.append(String.format(
                    Locale.ROOT,
                    "%n**p99 on / off: %.2f** (median p99 of the windows: %.1f ms on, %.1f ms off; compaction was still"
                            + " working at the end of %d of the %d \"on\" windows)%n%n",
                    onP99 / Math.max(1, offP99),
                    onP99 / 1000,
                    offP99 / 1000,
                    onWindowsCompacting,
                    latencyOn.size()));
            if (!manyLag.isEmpty()) {
                b.append("### Many streams: the largest compaction lag, every 5 s\n\n");
                StringBuilder s = new StringBuilder();
                for (double d : manyLag) {
                    s.append(s.isEmpty() ? "" : ", ").append(String.format(Locale.ROOT, "%.0f", d));
                }
                b.append(s).append(" (seconds)\n");
            }
            return b.toString();
        }

        private static void row(StringBuilder b, String stream, String from, CatchUp c) {
            b.append(String.format(
                    Locale.ROOT,
                    "| %s | %s | %,d | %.1f | %.2f | %.1f | %,d | %.1f | %,.0f |%n",
                    stream,
                    from,
                    c.entries(),
                    c.bytes() / 1048576.0,
                    c.seconds(),
                    c.mibPerSecond(),
                    c.gets(),
                    c.getBytes() / 1048576.0,
                    c.getsPerGib()));
        }

        private static double medianP99(List<Latency> windows) {
            List<Double> p99 = windows.stream().map(Latency::p99).sorted().toList();
            return p99.get(p99.size() / 2);
        }

        private static void lat(StringBuilder b, String what, int window, Latency l) {
            b.append(String.format(
                    Locale.ROOT,
                    "| %s | %d | %,d | %.1f | %.1f | %.1f | %.1f |%n",
                    what,
                    window,
                    l.appends(),
                    l.p50() / 1000,
                    l.p99() / 1000,
                    l.p999() / 1000,
                    l.max() / 1000));
        }
    }
}
