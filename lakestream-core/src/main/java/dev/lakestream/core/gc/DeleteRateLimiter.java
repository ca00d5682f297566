package dev.lakestream.core.gc;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Paces deletes to at most a rate: each admission of {@code n} objects reserves {@code n / rate} seconds after
 * the previous reservation, and completes when its slot starts (on the scheduler; no thread waits). So by any time
 * {@code t} after the first admission at most {@code rate * t + n} objects were admitted, {@code n} being the
 * largest single admission. Closing fails the admissions still waiting.
 */
@SuppressWarnings("UndefinedEquals") // the waiting set holds futures by identity, which is what it wants
final class DeleteRateLimiter implements AutoCloseable {

    private final double nanosPerObject;
    private final ScheduledExecutorService scheduler;
    private final LongSupplier nanoTime;
    private final Set<CompletableFuture<Void>> waiting = new HashSet<>();
    private long nextFreeNanos;
    private boolean started;
    private boolean closed;

    DeleteRateLimiter(int perSecond, ScheduledExecutorService scheduler, LongSupplier nanoTime) {
        this.nanosPerObject = 1e9 / perSecond;
        this.scheduler = scheduler;
        this.nanoTime = nanoTime;
    }

    synchronized CompletableFuture<Void> acquire(int objects) {
        if (closed) {
            return CompletableFuture.failedFuture(new CancellationException("the GC service is closing"));
        }
        long now = nanoTime.getAsLong();
        long start = started && nextFreeNanos - now > 0 ? nextFreeNanos : now;
        started = true;
        nextFreeNanos = start + (long) Math.ceil(objects * nanosPerObject);
        long delay = start - now;
        if (delay <= 0) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<Void> slot = new CompletableFuture<>();
        waiting.add(slot);
        // a timer: it completes the slot the caller holds.
        var unused = scheduler.schedule(
                () -> {
                    synchronized (this) {
                        waiting.remove(slot);
                    }
                    slot.complete(null);
                },
                delay,
                TimeUnit.NANOSECONDS);
        return slot;
    }

    @Override
    public void close() {
        Set<CompletableFuture<Void>> failing;
        synchronized (this) {
            closed = true;
            failing = Set.copyOf(waiting);
            waiting.clear();
        }
        failing.forEach(f -> f.completeExceptionally(new CancellationException("the GC service is closing")));
    }
}
