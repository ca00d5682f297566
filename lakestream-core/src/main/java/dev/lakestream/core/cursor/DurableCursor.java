package dev.lakestream.core.cursor;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A named cursor of one stream: the acknowledged offsets, kept in memory and persisted to a
 * {@link CursorStore} at most once per {@code persistInterval} (changes in between are coalesced into the
 * next write). A non-durable cursor is the same without a store.
 *
 * <p>Every change returns the future of the write that will include it, so a caller that needs the change
 * durable waits on it, and one that does not ignores it. Thread-safe.
 */
public final class DurableCursor {

    private final long streamId;
    private final String name;
    private final CursorStore store;
    private final ScheduledExecutorService scheduler;
    private final long intervalNanos;

    private long ackedBefore;
    private final AckRanges acked;
    private Map<String, Long> positionProperties;
    private Map<String, String> properties;

    private long lastPersistNanos = Long.MIN_VALUE / 2;
    private boolean writing;
    /** Completes when a write that includes every change so far has finished; null when nothing is pending. */
    private CompletableFuture<Void> nextWrite;

    private boolean scheduled;
    private boolean closed;

    /** A cursor restored from (or starting as) {@code state}; {@code store == null} makes it non-durable. */
    public DurableCursor(
            long streamId,
            String name,
            CursorState state,
            CursorStore store,
            ScheduledExecutorService scheduler,
            Duration persistInterval) {
        this.streamId = streamId;
        this.name = name;
        this.store = store;
        this.scheduler = scheduler;
        this.intervalNanos = persistInterval.toNanos();
        this.ackedBefore = state.ackedBefore();
        this.acked = state.individuallyAcked().copy();
        this.positionProperties = new HashMap<>(state.positionProperties());
        this.properties = new HashMap<>(state.properties());
    }

    public long streamId() {
        return streamId;
    }

    public String name() {
        return name;
    }

    public boolean isDurable() {
        return store != null;
    }

    /** Every offset below this is acknowledged. */
    public synchronized long ackedBefore() {
        return ackedBefore;
    }

    public synchronized boolean isAcked(long offset) {
        return offset < ackedBefore || acked.contains(offset);
    }

    /** Offsets at or beyond the mark-delete point acknowledged one by one, within {@code [from, to)}. */
    public synchronized long individuallyAckedIn(long from, long to) {
        return acked.countIn(from, to);
    }

    public synchronized CursorState state() {
        return new CursorState(ackedBefore, acked, positionProperties, properties);
    }

    /**
     * Acknowledges every offset below {@code offset} (moves the mark-delete point; never backwards unless
     * {@link #reset} is used). {@code positionProperties} replace the previous ones when not null.
     */
    public synchronized CompletableFuture<Void> markDelete(long offset, Map<String, Long> positionProperties) {
        if (positionProperties != null) {
            this.positionProperties = new HashMap<>(positionProperties);
        }
        advanceTo(offset);
        return changed();
    }

    /** Acknowledges the offsets {@code [start, end)}; the mark-delete point follows when they close its gap. */
    public synchronized CompletableFuture<Void> ack(long start, long end) {
        if (start <= ackedBefore) {
            advanceTo(end);
        } else {
            acked.add(start, end);
        }
        return changed();
    }

    /** Moves the mark-delete point to {@code offset} in either direction and forgets individual acks. */
    public synchronized CompletableFuture<Void> reset(long offset) {
        ackedBefore = offset;
        acked.removeBelow(Long.MAX_VALUE);
        return changed();
    }

    public synchronized CompletableFuture<Void> setProperties(Map<String, String> properties) {
        this.properties = new HashMap<>(properties);
        return changed();
    }

    public synchronized Map<String, String> properties() {
        return Map.copyOf(properties);
    }

    public synchronized Map<String, Long> positionProperties() {
        return Map.copyOf(positionProperties);
    }

    /** Writes what is pending now, not waiting for the interval; completes when it is durable. */
    public CompletableFuture<Void> flush() {
        CompletableFuture<Void> f;
        synchronized (this) {
            if (nextWrite == null) {
                return CompletableFuture.completedFuture(null);
            }
            f = nextWrite;
            if (!writing) {
                startWrite();
            }
        }
        return f;
    }

    /** Flushes and stops persisting. */
    public CompletableFuture<Void> close() {
        CompletableFuture<Void> f = flush();
        synchronized (this) {
            closed = true;
        }
        return f;
    }

    private void advanceTo(long offset) {
        if (offset <= ackedBefore) {
            return;
        }
        ackedBefore = offset;
        acked.removeBelow(offset);
        ackedBefore = acked.takeRunFrom(ackedBefore);
    }

    /** Records that the state changed; returns the future of the write that will carry the change. */
    private CompletableFuture<Void> changed() {
        if (store == null) {
            return CompletableFuture.completedFuture(null);
        }
        if (closed) {
            return CompletableFuture.failedFuture(
                    new IllegalStateException("cursor '" + name + "' of stream " + streamId + " is closed"));
        }
        if (nextWrite == null) {
            nextWrite = new CompletableFuture<>();
        }
        CompletableFuture<Void> f = nextWrite;
        if (!writing && !scheduled) {
            long wait = lastPersistNanos + intervalNanos - System.nanoTime();
            if (wait <= 0) {
                startWrite();
            } else {
                scheduled = true;
                // a timer: the write it starts completes the pending future.
                var unused = scheduler.schedule(this::scheduledWrite, wait, TimeUnit.NANOSECONDS);
            }
        }
        return f;
    }

    private synchronized void scheduledWrite() {
        scheduled = false;
        if (!writing && nextWrite != null) {
            startWrite();
        }
    }

    /** Called under the lock: writes the current state; the pending future is the one completed. */
    private void startWrite() {
        CompletableFuture<Void> done = nextWrite;
        nextWrite = null;
        writing = true;
        lastPersistNanos = System.nanoTime();
        CursorState snapshot = state();
        // the callback completes the write's futures either way.
        var unused = store.save(streamId, name, snapshot).whenComplete((v, e) -> {
            synchronized (this) {
                writing = false;
                if (e != null && nextWrite == null && !closed) {
                    // The state in memory is still newer than the store: write it again at the next slot.
                    nextWrite = new CompletableFuture<>();
                }
                if (nextWrite != null && !scheduled) {
                    long wait = lastPersistNanos + intervalNanos - System.nanoTime();
                    scheduled = true;
                    // a timer: the write it starts completes the pending future.
                    var unusedTimer = scheduler.schedule(this::scheduledWrite, Math.max(0, wait), TimeUnit.NANOSECONDS);
                }
            }
            if (e != null) {
                done.completeExceptionally(e);
            } else {
                done.complete(null);
            }
        });
    }
}
