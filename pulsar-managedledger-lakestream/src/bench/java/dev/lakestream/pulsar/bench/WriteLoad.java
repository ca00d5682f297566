package dev.lakestream.pulsar.bench;

import dev.lakestream.core.bench.CoreBenchAccess;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/** Drives an {@link Appender} from one thread, round-robin over its streams: closed loop or at a fixed rate. */
final class WriteLoad {

    record Throughput(double mibPerSecond, double entriesPerSecond, double otherCores, String cpu) {}

    record Latency(long count, double achievedRate, double p50, double p99, double p999, double max) {}

    private static final double MIB = 1 << 20;

    private final int entryBytes;

    WriteLoad(int entryBytes) {
        this.entryBytes = entryBytes;
    }

    /** As fast as {@code inFlight} adds in flight allow; measures the {@code seconds} after {@code warmup}. */
    Throughput throughput(Appender a, int inFlight, double warmup, double seconds) throws InterruptedException {
        Semaphore permits = new Semaphore(inFlight);
        AtomicLong done = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long begin = System.nanoTime();
        long measureFrom = begin + (long) (warmup * 1e9);
        long end = measureFrom + (long) (seconds * 1e9);
        CoreBenchAccess.Cpu cpu = new CoreBenchAccess.Cpu();
        long before = -1;
        int i = 0;
        while (System.nanoTime() < end) {
            if (before < 0 && System.nanoTime() >= measureFrom) {
                before = done.get();
                cpu.start();
            }
            if (!permits.tryAcquire(10, TimeUnit.MILLISECONDS)) {
                continue;
            }
            send(a, i, permits, done, failure, null);
            i = i + 1 == a.streams() ? 0 : i + 1;
        }
        long after = done.get();
        CoreBenchAccess.Usage usage = cpu.stop();
        drain(permits, inFlight, failure);
        double n = after - before;
        return new Throughput(
                n * entryBytes / MIB / seconds,
                n / seconds,
                usage.otherCores(),
                usage.summary() + "; busiest threads: " + usage.topThreads());
    }

    /** Open loop at {@code rate} adds/s; latency of each add from its call to its completion. */
    Latency fixedRate(Appender a, int rate, double warmup, double seconds) throws InterruptedException {
        Semaphore permits = new Semaphore(Integer.MAX_VALUE / 2);
        AtomicLong done = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CoreBenchAccess.Latency measured = new CoreBenchAccess.Latency();
        CoreBenchAccess.Latency ignored = new CoreBenchAccess.Latency();
        long begin = System.nanoTime();
        long measureFrom = begin + (long) (warmup * 1e9);
        long total = (long) ((warmup + seconds) * rate);
        long interval = 1_000_000_000L / rate;
        int i = 0;
        for (long k = 0; k < total; k++) {
            long due = begin + k * interval;
            long wait = due - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
            }
            permits.acquire();
            send(a, i, permits, done, failure, due >= measureFrom ? measured : ignored);
            i = i + 1 == a.streams() ? 0 : i + 1;
        }
        double elapsed = (System.nanoTime() - measureFrom) / 1e9;
        drain(permits, Integer.MAX_VALUE / 2, failure);
        return new Latency(
                measured.count(),
                measured.count() / elapsed,
                measured.millis(0.5),
                measured.millis(0.99),
                measured.millis(0.999),
                measured.maxMillis());
    }

    /** Adds {@code perStream} entries to every stream, {@code inFlight} at a time (to lay down a data set). */
    void fill(Appender a, int perStream, int inFlight) throws InterruptedException {
        Semaphore permits = new Semaphore(inFlight);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicLong done = new AtomicLong();
        for (int k = 0; k < perStream; k++) {
            for (int i = 0; i < a.streams(); i++) {
                permits.acquire();
                send(a, i, permits, done, failure, null);
            }
        }
        drain(permits, inFlight, failure);
    }

    private void send(
            Appender a,
            int i,
            Semaphore permits,
            AtomicLong done,
            AtomicReference<Throwable> failure,
            CoreBenchAccess.Latency latency) {
        ByteBuf entry = PooledByteBufAllocator.DEFAULT.directBuffer(entryBytes, entryBytes);
        entry.writeLong(i).writeLong(System.nanoTime()).writeZero(entryBytes - 16);
        long start = System.nanoTime();
        try {
            a.append(i, entry).whenComplete((r, e) -> {
                if (e != null) {
                    failure.compareAndSet(null, e);
                } else {
                    if (latency != null) {
                        latency.record(System.nanoTime() - start);
                    }
                    done.incrementAndGet();
                }
                permits.release();
            });
        } finally {
            entry.release();
        }
    }

    /** Waits (60 s at most) for every add in flight, then fails if any add failed. */
    private static void drain(Semaphore permits, int all, AtomicReference<Throwable> failure)
            throws InterruptedException {
        if (!permits.tryAcquire(all, 60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("adds still in flight after 60 s");
        }
        permits.release(all);
        if (failure.get() != null) {
            throw new IllegalStateException("an add failed", failure.get());
        }
    }
}
