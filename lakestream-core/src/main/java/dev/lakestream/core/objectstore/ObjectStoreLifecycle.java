package dev.lakestream.core.objectstore;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Whether one object store is open, and the operations it has in flight: an operation started after close, or
 * still running at close, fails with an {@link ObjectStoreException} that names the store, the operation and the
 * key, instead of never completing.
 */
public final class ObjectStoreLifecycle {

    private final String storeName;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** By a number of their own: futures have no defined equality. */
    private final Map<Long, CompletableFuture<?>> inFlight = new ConcurrentHashMap<>();

    private final AtomicLong operationIds = new AtomicLong();

    /** @param storeName what the store is, for messages, e.g. {@code "S3 object store s3://bucket at endpoint"} */
    public ObjectStoreLifecycle(String storeName) {
        this.storeName = storeName;
    }

    public boolean isClosed() {
        return closed.get();
    }

    /** Marks the store closed; {@code true} only for the first call, which must then release the store. */
    public boolean close() {
        return closed.compareAndSet(false, true);
    }

    /** The error of {@code op} on {@code key} (or of any operation when {@code key} is null) refused by a closed store. */
    public ObjectStoreException closedError(String op, String key) {
        return new ObjectStoreException(storeName + " is closed"
                + (key == null ? "" : ": " + op + " " + ObjectKeys.printable(key) + " refused"));
    }

    /** A failed future when the store is closed, else {@code null}. */
    public <T> CompletableFuture<T> refusedIfClosed(String op, String key) {
        return closed.get() ? CompletableFuture.failedFuture(closedError(op, key)) : null;
    }

    /** Remembers {@code operation} until it completes, so that {@link #failInFlight} can fail it. */
    public <T> CompletableFuture<T> track(CompletableFuture<T> operation) {
        long id = operationIds.incrementAndGet();
        inFlight.put(id, operation);
        var unused = operation.whenComplete((v, e) -> inFlight.remove(id));
        if (closed.get()) {
            operation.completeExceptionally(closedError("operation", null));
        }
        return operation;
    }

    /** Fails every tracked operation still running with {@code error}; for close. */
    public void failInFlight(Throwable error) {
        for (CompletableFuture<?> operation : inFlight.values()) {
            operation.completeExceptionally(error);
        }
    }
}
