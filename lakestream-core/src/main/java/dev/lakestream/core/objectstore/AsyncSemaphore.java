package dev.lakestream.core.objectstore;

import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * A semaphore whose {@link #acquire()} never blocks: it returns a future completed when a permit is granted,
 * in FIFO order. Used to bound the requests a store has in flight without blocking callers.
 *
 * <p>A waiter is granted its permit on the thread that released it, so work started on grant should be
 * short (starting an asynchronous request is).
 */
public final class AsyncSemaphore {

    private final int permits;
    private final ArrayDeque<CompletableFuture<Void>> waiters = new ArrayDeque<>();
    private int available;
    private Throwable closedWith;

    public AsyncSemaphore(int permits) {
        if (permits < 1) {
            throw new IllegalArgumentException("permits must be >= 1: " + permits);
        }
        this.permits = permits;
        this.available = permits;
    }

    /** A future completed when the caller holds a permit; it must then call {@link #release()} once. */
    public CompletableFuture<Void> acquire() {
        synchronized (this) {
            if (closedWith != null) {
                return CompletableFuture.failedFuture(closedWith);
            }
            if (available > 0) {
                available--;
                return CompletableFuture.completedFuture(null);
            }
            CompletableFuture<Void> waiter = new CompletableFuture<>();
            waiters.add(waiter);
            return waiter;
        }
    }

    /** Gives a permit back: to the oldest waiter, if any. */
    public void release() {
        while (true) {
            CompletableFuture<Void> next;
            synchronized (this) {
                next = waiters.poll();
                if (next == null) {
                    if (available >= permits) {
                        throw new IllegalStateException("release() without a matching acquire()");
                    }
                    available++;
                    return;
                }
            }
            if (next.complete(null)) {
                return;
            }
            // The waiter was cancelled or failed: hand the permit to the next one.
        }
    }

    /**
     * Runs {@code task} while holding a permit, released when the task's future completes (or the task
     * throws).
     */
    public <T> CompletableFuture<T> withPermit(Supplier<CompletableFuture<T>> task) {
        return acquire().thenCompose(granted -> {
            CompletableFuture<T> f;
            try {
                f = task.get();
            } catch (Throwable t) {
                release();
                return CompletableFuture.failedFuture(t);
            }
            return f.whenComplete((v, e) -> release());
        });
    }

    /** Fails the current waiters and every later {@link #acquire()} with {@code cause}. */
    public void close(Throwable cause) {
        ArrayDeque<CompletableFuture<Void>> failed;
        synchronized (this) {
            if (closedWith != null) {
                return;
            }
            closedWith = cause;
            failed = new ArrayDeque<>(waiters);
            waiters.clear();
        }
        failed.forEach(w -> w.completeExceptionally(cause));
    }

    /** Permits free now. */
    public synchronized int available() {
        return available;
    }

    /** Callers waiting for a permit now. */
    public synchronized int waiting() {
        return waiters.size();
    }
}
