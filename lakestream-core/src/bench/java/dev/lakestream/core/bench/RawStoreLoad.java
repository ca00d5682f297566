package dev.lakestream.core.bench;

import static dev.lakestream.core.bench.Figures.ms;

import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * The object store alone, as the yardstick for the log: raw PUTs of whole objects and raw ranged GETs of them,
 * each with a fixed number of requests in flight.
 */
final class RawStoreLoad {

    /** The range of a raw ranged GET. */
    static final int RAW_GET_RANGE = 128 << 10;

    private final BenchContext ctx;

    RawStoreLoad(BenchContext ctx) {
        this.ctx = ctx;
    }

    /** PUTs of one prepared buffer of {@code size} bytes, {@code concurrency} at a time, for the given time. */
    RawRun put(int size, int concurrency, String tag, int warmupSeconds, int measureSeconds)
            throws InterruptedException {
        byte[] bytes = new byte[size];
        new SplittableRandom(size).nextBytes(bytes);
        ByteBuffer data = ByteBuffer.wrap(bytes).asReadOnlyBuffer();
        String prefix = "raw/" + tag + "/";
        AtomicLong sequence = new AtomicLong();
        Window w = measure(
                concurrency,
                "put",
                "raw PUTs",
                warmupSeconds,
                measureSeconds,
                () -> ctx.objects.put(prefix + sequence.incrementAndGet(), data.duplicate()),
                v -> true);
        return new RawRun(
                size,
                concurrency,
                w.seconds(),
                w.requests(),
                w.requests() * size,
                ms(w.latency(), 0.5),
                ms(w.latency(), 0.99),
                sequence.get(),
                w.cpu());
    }

    /**
     * Ranged GETs of {@code range} bytes at random offsets of the {@code keys} objects a raw PUT run wrote under
     * {@code prefix}, {@code concurrency} at a time.
     */
    RawRun rangedGet(
            String prefix, long keys, int objectSize, int range, int concurrency, int warmupSeconds, int measureSeconds)
            throws InterruptedException {
        SplittableRandom random = new SplittableRandom(keys);
        Supplier<CompletableFuture<ByteBuffer>> get = () -> {
            long key;
            long offset;
            synchronized (random) {
                key = 1 + random.nextLong(keys);
                offset = random.nextLong(objectSize - range + 1);
            }
            return ctx.objects.get(prefix + key, offset, range);
        };
        Window w = measure(
                concurrency, "getRange", "raw GETs", warmupSeconds, measureSeconds, get, b -> b.remaining() == range);
        return new RawRun(
                range,
                concurrency,
                w.seconds(),
                w.requests(),
                w.requests() * range,
                ms(w.latency(), 0.5),
                ms(w.latency(), 0.99),
                keys,
                w.cpu());
    }

    /** Requests completed in the measured window, its length, their latency as the decorator timed it, CPU. */
    private record Window(long requests, double seconds, Histogram latency, CpuMeter.Usage cpu) {}

    /**
     * Keeps {@code concurrency} requests in flight (each loop issues its next request when the last completes)
     * through the warm-up and the measured window, then lets them drain; {@code op} is the decorator's name
     * for the request, {@code what} names the requests in messages.
     */
    private <T> Window measure(
            int concurrency,
            String op,
            String what,
            int warmupSeconds,
            int measureSeconds,
            Supplier<CompletableFuture<T>> request,
            Predicate<T> succeeded)
            throws InterruptedException {
        Loops<T> loops = new Loops<>(request, succeeded);
        for (int c = 0; c < concurrency; c++) {
            loops.next();
        }
        Thread.sleep(warmupSeconds * 1000L);
        ctx.objectsI.reset();
        long d0 = loops.done.get();
        CpuMeter.Snapshot c0 = ctx.cpu.snapshot();
        Thread.sleep(measureSeconds * 1000L);
        long d1 = loops.done.get();
        CpuMeter.Snapshot c1 = ctx.cpu.snapshot();
        loops.stop.set(true);
        if (!loops.finished.tryAcquire(concurrency, 120, TimeUnit.SECONDS)) {
            throw new IllegalStateException(what + " did not finish within 120 s");
        }
        Histogram latency = ctx.objectsI.op(op).latency;
        ctx.detach();
        if (loops.failures.get() > 0) {
            ctx.log("WARNING: %d %s failed", loops.failures.get(), what);
        }
        double seconds = (c1.wallNanos() - c0.wallNanos()) / 1e9;
        return new Window(d1 - d0, seconds, latency, CpuMeter.between(c0, c1));
    }

    /** Request loops sharing their counters; each loop releases {@code finished} once when it sees {@code stop}. */
    private static final class Loops<T> {
        final Supplier<CompletableFuture<T>> request;
        final Predicate<T> succeeded;
        final AtomicBoolean stop = new AtomicBoolean();
        final AtomicLong done = new AtomicLong();
        final AtomicLong failures = new AtomicLong();
        final Semaphore finished = new Semaphore(0);

        Loops(Supplier<CompletableFuture<T>> request, Predicate<T> succeeded) {
            this.request = request;
            this.succeeded = succeeded;
        }

        void next() {
            if (stop.get()) {
                finished.release();
                return;
            }
            // the callback counts the outcome, failures included.
            var unused = request.get().whenComplete((v, e) -> {
                if (e != null || !succeeded.test(v)) {
                    failures.incrementAndGet();
                } else {
                    done.incrementAndGet();
                }
                next();
            });
        }
    }
}
