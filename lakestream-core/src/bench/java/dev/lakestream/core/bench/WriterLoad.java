package dev.lakestream.core.bench;

import dev.lakestream.core.StreamLog;
import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.FastThreadLocalThread;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * Appends to the log, round-robin over the streams from one thread: as fast as the append window allows
 * (throughput), or at a fixed rate (latency). Each measures a window after its warm-up.
 */
final class WriterLoad {

    private final BenchContext ctx;
    private final BenchOptions o;

    WriterLoad(BenchContext ctx) {
        this.ctx = ctx;
        this.o = ctx.o;
    }

    /**
     * Appends as fast as a window of {@code outstanding} appends in flight allows; measures the
     * {@code measureSeconds} after {@code warmupSeconds}. {@code seqs} holds each stream's next sequence number.
     */
    WriterRun saturating(List<StreamLog> streams, long[] seqs, int warmupSeconds, int measureSeconds)
            throws InterruptedException {
        Semaphore permits = new Semaphore(o.outstanding);
        AtomicLong entries = new AtomicLong();
        AtomicLong bytes = new AtomicLong();
        AtomicLong failures = new AtomicLong();
        AtomicReference<Throwable> firstFailure = new AtomicReference<>();
        AtomicReference<Histogram> latency = new AtomicReference<>(new Histogram());
        AtomicBoolean stop = new AtomicBoolean();
        // A FastThreadLocalThread, as a broker's Netty event loops are: Netty 4.2 gives pooled-buffer thread
        // caches only to those, so a plain thread would allocate every payload from the shared arenas.
        Thread producer = new FastThreadLocalThread(
                () -> {
                    int n = streams.size();
                    int i = 0;
                    while (!stop.get()) {
                        try {
                            if (!permits.tryAcquire(50, TimeUnit.MILLISECONDS)) {
                                continue;
                            }
                        } catch (InterruptedException e) {
                            return;
                        }
                        int s = i;
                        i = i + 1 == n ? 0 : i + 1;
                        StreamLog stream = streams.get(s);
                        ByteBuf p = ctx.payload(stream.id(), seqs[s]++);
                        Histogram h = latency.get();
                        long start = System.nanoTime();
                        // the callback counts the outcome, failures included.
                        var unused = stream.append(1, p).whenComplete((r, e) -> {
                            if (e != null) {
                                failures.incrementAndGet();
                                firstFailure.compareAndSet(null, e);
                            } else {
                                h.record(System.nanoTime() - start);
                                entries.incrementAndGet();
                                bytes.addAndGet(o.entryBytes);
                            }
                            permits.release();
                        });
                        p.release();
                    }
                },
                "bench-producer");
        producer.start();
        Thread.sleep(warmupSeconds * 1000L);

        ctx.detach();
        Histogram window = new Histogram();
        latency.set(window);
        long e0 = entries.get();
        long b0 = bytes.get();
        CpuMeter.Snapshot c0 = ctx.cpu.snapshot();
        Thread.sleep(measureSeconds * 1000L);
        long e1 = entries.get();
        long b1 = bytes.get();
        CpuMeter.Snapshot c1 = ctx.cpu.snapshot();
        Instrumented.OpStats put = ctx.objectsI.op("put");
        double meanInFlight = put.meanInFlight();
        int maxInFlight = put.maxInFlight();
        long puts = put.calls.get();
        long objectBytes = put.bytes.get();
        long fullObjects = put.sizes.countAtLeast(ctx.config.writer().maxObjectBytes());
        long metadataWrites = ctx.metadataWrites();
        Histogram commits = ctx.metadataI.op("putSequence").latency;

        stop.set(true);
        producer.join();
        if (!permits.tryAcquire(o.outstanding, 120, TimeUnit.SECONDS)) {
            throw new IllegalStateException("appends did not finish within 120 s of the end of the run");
        }
        ctx.detach();
        warnOfFailures(failures, firstFailure);
        double seconds = (c1.wallNanos() - c0.wallNanos()) / 1e9;
        return new WriterRun(
                seconds,
                e1 - e0,
                b1 - b0,
                puts,
                objectBytes,
                fullObjects,
                meanInFlight,
                maxInFlight,
                metadataWrites,
                window,
                put.latency,
                commits,
                failures.get(),
                CpuMeter.between(c0, c1));
    }

    /**
     * Appends at {@code o.rate} per second (open loop, paced by the clock). {@code objectStats} counts the object
     * store these streams' log writes to: the shared one, or the one behind the latency injector.
     */
    LatencyRun fixedRate(Instrumented objectStats, List<StreamLog> streams, int warmupSeconds, int measureSeconds)
            throws InterruptedException {
        return fixedRate(objectStats, ctx.metadataI, streams, warmupSeconds, measureSeconds, o.rate);
    }

    /**
     * As {@link #fixedRate(Instrumented, List, int, int)}, at {@code rate} appends per second, with
     * {@code metadataStats} counting the metadata store the streams' log commits to.
     */
    LatencyRun fixedRate(
            Instrumented objectStats,
            Instrumented metadataStats,
            List<StreamLog> streams,
            int warmupSeconds,
            int measureSeconds,
            int rate)
            throws InterruptedException {
        long[] seqs = new long[streams.size()];
        AtomicLong pending = new AtomicLong();
        AtomicLong failures = new AtomicLong();
        AtomicReference<Throwable> firstFailure = new AtomicReference<>();
        Histogram window = new Histogram();
        long period = 1_000_000_000L / rate;
        long start = System.nanoTime();
        long windowStart = start + warmupSeconds * 1_000_000_000L;
        long end = windowStart + measureSeconds * 1_000_000_000L;
        long next = start;
        boolean open = false;
        long issuedInWindow = 0;
        CpuMeter.Snapshot c0 = null;
        int i = 0;
        while (true) {
            long now = System.nanoTime();
            if (!open && now >= windowStart) {
                objectStats.reset();
                metadataStats.reset();
                c0 = ctx.cpu.snapshot();
                open = true;
            }
            if (now >= end) {
                break;
            }
            while (next <= now) {
                int s = i;
                i = i + 1 == streams.size() ? 0 : i + 1;
                StreamLog stream = streams.get(s);
                ByteBuf p = ctx.payload(stream.id(), seqs[s]++);
                Histogram h = open ? window : null;
                pending.incrementAndGet();
                long t0 = System.nanoTime();
                // the callback counts the outcome, failures included.
                var unused = stream.append(1, p).whenComplete((r, e) -> {
                    if (e != null) {
                        failures.incrementAndGet();
                        firstFailure.compareAndSet(null, e);
                    } else if (h != null) {
                        h.record(System.nanoTime() - t0);
                    }
                    pending.decrementAndGet();
                });
                p.release();
                if (open) {
                    issuedInWindow++;
                }
                next += period;
            }
            LockSupport.parkNanos(Math.max(10_000, next - System.nanoTime()));
        }
        CpuMeter.Snapshot c1 = ctx.cpu.snapshot();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (pending.get() > 0) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(pending.get() + " appends still pending 120 s after the run");
            }
            Thread.sleep(10);
        }
        warnOfFailures(failures, firstFailure);
        Instrumented.OpStats put = objectStats.op("put");
        Histogram commits = metadataStats.op("putSequence").latency;
        long metadataWrites = BenchContext.metadataWrites(metadataStats);
        objectStats.reset();
        metadataStats.reset();
        ctx.detach();
        double seconds = measureSeconds;
        return new LatencyRun(
                rate,
                issuedInWindow / seconds,
                seconds,
                window,
                put.latency,
                commits,
                put.calls.get(),
                issuedInWindow * o.entryBytes,
                metadataWrites,
                failures.get(),
                CpuMeter.between(c0, c1));
    }

    private void warnOfFailures(AtomicLong failures, AtomicReference<Throwable> firstFailure) {
        if (firstFailure.get() != null) {
            ctx.log("WARNING: %d appends failed, first: %s", failures.get(), firstFailure.get());
        }
    }
}
