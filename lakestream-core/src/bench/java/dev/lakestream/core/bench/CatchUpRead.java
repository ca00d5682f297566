package dev.lakestream.core.bench;

import dev.lakestream.core.Lakestream;
import dev.lakestream.core.StreamLog;
import dev.lakestream.core.catalog.StreamInfo;
import dev.lakestream.core.log.LogEntry;
import dev.lakestream.core.wal.ReaderConfig;
import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The catch-up read: a data set written at full speed, then read back by a fresh instance from offset 0 of
 * every stream, each entry's offset and bytes checked.
 */
final class CatchUpRead {

    /** The limits of one read call. */
    static final int READ_MAX_ENTRIES = 1000;

    static final long READ_MAX_BYTES = 1L << 20;

    private final BenchContext ctx;
    private final BenchOptions o;

    CatchUpRead(BenchContext ctx) {
        this.ctx = ctx;
        this.o = ctx.o;
    }

    /** A broker's dispatcher reads at most this many entries at a time ({@code dispatcherMaxReadBatchSize}). */
    static final int DISPATCH_MAX_ENTRIES = 100;
    /** ... and at most this many bytes ({@code dispatcherMaxReadSizeBytes}). */
    static final long DISPATCH_MAX_BYTES = 5L << 20;

    /**
     * Writes a catch-up data set: {@code mib} MiB spread evenly over the streams, at full speed (the same window of
     * appends in flight as the throughput runs).
     */
    WrittenStreams fill(Lakestream log, List<StreamInfo> infos, int mib) throws InterruptedException {
        List<StreamLog> streams = BenchContext.handles(log, infos);
        long perStream = Math.max(1, ((long) mib << 20) / o.entryBytes / streams.size());
        long[] seqs = new long[streams.size()];
        Semaphore permits = new Semaphore(o.outstanding);
        AtomicLong failures = new AtomicLong();
        ctx.objectsI.reset();
        ctx.metadataI.reset();
        for (long n = 0; n < perStream; n++) {
            for (int s = 0; s < streams.size(); s++) {
                permits.acquire();
                StreamLog stream = streams.get(s);
                ByteBuf p = ctx.payload(stream.id(), seqs[s]++);
                // the callback counts the outcome, failures included.
                var unused = stream.append(1, p).whenComplete((r, e) -> {
                    if (e != null) {
                        failures.incrementAndGet();
                    }
                    permits.release();
                });
                p.release();
            }
        }
        if (!permits.tryAcquire(o.outstanding, 120, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the catch-up data was not written within 120 s");
        }
        if (failures.get() > 0) {
            throw new IllegalStateException(failures.get() + " appends of the catch-up data failed");
        }
        return new WrittenStreams(infos, seqs, ctx.metadataI.calls("putSequence"), ctx.objectsI.calls("put"));
    }

    /** A fresh instance (empty cache) reads every stream of the data set from offset 0, all streams at once. */
    ReadRun read(WrittenStreams w) throws Exception {
        AtomicLong entries = new AtomicLong();
        AtomicLong bytes = new AtomicLong();
        AtomicLong mismatches = new AtomicLong();
        try (Lakestream reader = Lakestream.open(ctx.objects, ctx.metadata, ctx.config)) {
            ctx.objectsI.reset();
            ctx.metadataI.reset();
            CpuMeter.Snapshot c0 = ctx.cpu.snapshot();
            List<CompletableFuture<Void>> all = new ArrayList<>();
            for (int k = 0; k < w.infos().size(); k++) {
                all.add(readFrom(
                        reader.stream(w.infos().get(k)),
                        0,
                        w.ends()[k],
                        READ_MAX_ENTRIES,
                        READ_MAX_BYTES,
                        entries,
                        bytes,
                        mismatches));
            }
            awaitWithProgress(CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)), entries);
            CpuMeter.Snapshot c1 = ctx.cpu.snapshot();
            long expected = Arrays.stream(w.ends()).sum();
            if (entries.get() != expected) {
                mismatches.addAndGet(Math.abs(expected - entries.get()));
            }
            // The caller's ReadCheck fails the benchmark on a shortfall (also counted as mismatches, as before).
            Instrumented.OpStats get = ctx.objectsI.op("get");
            Instrumented.OpStats range = ctx.objectsI.op("getRange");
            Instrumented.OpStats scans = ctx.metadataI.op("rangeScan");
            ctx.detach();
            return new ReadRun(
                    (c1.wallNanos() - c0.wallNanos()) / 1e9,
                    expected,
                    entries.get(),
                    bytes.get(),
                    get.calls.get(),
                    range.calls.get(),
                    get.bytes.get() + range.bytes.get(),
                    scans.calls.get(),
                    scans.sizes.sum(),
                    mismatches.get(),
                    range.latency,
                    range.meanInFlight(),
                    scans.latency,
                    CpuMeter.between(c0, c1));
        }
    }

    /** Waits for {@code done}; fails, naming what is still in flight, if {@code progress} stands still for 60 s. */
    private void awaitWithProgress(CompletableFuture<Void> done, AtomicLong progress) throws Exception {
        long last = progress.get();
        long lastChange = System.nanoTime();
        while (true) {
            try {
                done.get(1, TimeUnit.SECONDS);
                return;
            } catch (TimeoutException e) {
                long now = progress.get();
                if (now != last) {
                    last = now;
                    lastChange = System.nanoTime();
                } else if (System.nanoTime() - lastChange > TimeUnit.SECONDS.toNanos(60)) {
                    throw new IllegalStateException("catch-up read made no progress for 60 s at " + now
                            + " entries; in flight: object store " + ctx.objectsI.inFlight() + ", metadata store "
                            + ctx.metadataI.inFlight());
                }
            }
        }
    }

    /**
     * The first stream of {@code w} read from offset 0 to its end as a broker's dispatcher reads a topic for a
     * subscription catching up (one read of at most {@value #DISPATCH_MAX_ENTRIES} entries after another), by a fresh
     * instance on {@code objects} (in the benchmark: the store with injected latency) with {@code reader} settings.
     */
    DispatchRun dispatch(WrittenStreams w, Instrumented objects, ReaderConfig reader) throws Exception {
        AtomicLong entries = new AtomicLong();
        AtomicLong bytes = new AtomicLong();
        AtomicLong mismatches = new AtomicLong();
        try (Lakestream log = Lakestream.open(objects.asObjectStore(), ctx.metadata, ctx.config.withReader(reader))) {
            objects.reset();
            ctx.metadataI.reset();
            long t0 = System.nanoTime();
            readFrom(
                            log.stream(w.infos().get(0)),
                            0,
                            w.ends()[0],
                            DISPATCH_MAX_ENTRIES,
                            DISPATCH_MAX_BYTES,
                            entries,
                            bytes,
                            mismatches)
                    .get(10, TimeUnit.MINUTES);
            double seconds = (System.nanoTime() - t0) / 1e9;
            if (entries.get() != w.ends()[0]) {
                mismatches.addAndGet(Math.abs(w.ends()[0] - entries.get()));
            }
            Instrumented.OpStats range = objects.op("getRange");
            return new DispatchRun(
                    seconds,
                    w.ends()[0],
                    entries.get(),
                    bytes.get(),
                    reads(w.ends()[0]),
                    range.calls.get(),
                    range.bytes.get(),
                    ctx.metadataI.op("rangeScan").sizes.sum(),
                    mismatches.get());
        }
    }

    /** How many reads of {@value #DISPATCH_MAX_ENTRIES} entries {@code entries} take. */
    private static long reads(long entries) {
        return (entries + DISPATCH_MAX_ENTRIES - 1) / DISPATCH_MAX_ENTRIES;
    }

    /** Reads {@code stream} from {@code from} to {@code end}, one read after another, checking each entry. */
    private CompletableFuture<Void> readFrom(
            StreamLog stream,
            long from,
            long end,
            int maxEntries,
            long maxBytes,
            AtomicLong entries,
            AtomicLong bytes,
            AtomicLong mismatches) {
        if (from >= end) {
            return CompletableFuture.completedFuture(null);
        }
        return stream.read(from, maxEntries, maxBytes).thenCompose(list -> {
            if (list.isEmpty()) {
                return CompletableFuture.failedFuture(
                        new IllegalStateException(stream + " returned nothing at offset " + from + " of " + end));
            }
            long next = from;
            for (LogEntry e : list) {
                try {
                    // The layout BenchContext.payload writes: stream id, then the entry's offset.
                    ByteBuf p = e.payload();
                    int at = p.readerIndex();
                    if (e.offset() != next
                            || p.readableBytes() != o.entryBytes
                            || p.getLong(at) != stream.id()
                            || p.getLong(at + 8) != e.offset()) {
                        mismatches.incrementAndGet();
                    }
                    entries.incrementAndGet();
                    bytes.addAndGet(p.readableBytes());
                    next = e.endOffset();
                } finally {
                    e.payload().release();
                }
            }
            return readFrom(stream, next, end, maxEntries, maxBytes, entries, bytes, mismatches);
        });
    }
}
