package dev.lakestream.iceberg;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The bound on what all materializers of one process (a broker, a standalone tool) hold in memory: the bytes of the
 * stream entries they have read and not yet committed (the rows of those entries sit in the Parquet writers until the
 * commit closes the files). A materializer reserves a read's worth ({@code readBytes}) before it reads; when the
 * reservation does not fit it reads nothing, and commits what it holds to give its share back. So the entries held
 * never exceed the limit by more than one entry per materializer (a read stops after the entry that reaches
 * {@code readBytes}). Thread-safe.
 */
public final class MemoryBudget {

    private final long limit;
    private final AtomicLong used = new AtomicLong();

    /** @param limitBytes the bound ({@code lakestream.iceberg.maxBufferedBytes}) */
    public MemoryBudget(long limitBytes) {
        if (limitBytes < 1) {
            throw new IllegalArgumentException("a memory budget must be positive, not " + limitBytes);
        }
        this.limit = limitBytes;
    }

    /** Takes {@code bytes} if they fit under the limit; false (nothing taken) otherwise. */
    boolean tryReserve(long bytes) {
        while (true) {
            long now = used.get();
            if (now + bytes > limit) {
                return false;
            }
            if (used.compareAndSet(now, now + bytes)) {
                return true;
            }
        }
    }

    /** Adjusts a reservation to what was actually taken (a read returned more or less than reserved). */
    void adjust(long delta) {
        used.addAndGet(delta);
    }

    void release(long bytes) {
        used.addAndGet(-bytes);
    }

    /** Bytes held now by every materializer sharing this budget. */
    public long used() {
        return used.get();
    }

    public long limit() {
        return limit;
    }
}
