package dev.lakestream.core.metrics;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the WAL garbage collector of this process did. Changed only by the GC service (its one owner) through the
 * transitions below; read by anyone.
 */
public final class GcMetrics {

    private final LongAdder runs = new LongAdder();
    private final LongAdder failedRuns = new LongAdder();
    private final LongAdder deletedObjects = new LongAdder();
    private final LongAdder deletedBytes = new LongAdder();
    private final LongAdder deadStreamsCleared = new LongAdder();
    private volatile boolean leaseHeld;
    private volatile Instant lastRunEnd;
    private volatile Instant lastSuccess;
    private volatile Duration lastRunDuration = Duration.ZERO;
    private volatile String lastError;

    /** One delete request of the collector succeeded. */
    public void deleted(int objects, long bytes) {
        deletedObjects.add(objects);
        deletedBytes.add(bytes);
    }

    public void runSucceeded(Instant end, Duration took, int deadStreams) {
        runs.increment();
        deadStreamsCleared.add(deadStreams);
        lastRunEnd = end;
        lastSuccess = end;
        lastRunDuration = took;
    }

    /** A run ended early: it failed, or the lease was lost under it. */
    public void runFailed(Instant end, Duration took, Throwable error) {
        runs.increment();
        failedRuns.increment();
        lastRunEnd = end;
        lastRunDuration = took;
        lastError = end + ": " + error;
    }

    /** Something other than a run failed, e.g. taking the lease. */
    public void failed(Instant when, Throwable error) {
        lastError = when + ": " + error;
    }

    public void leaseHeld(boolean held) {
        leaseHeld = held;
    }

    public long runs() {
        return runs.sum();
    }

    public long failedRuns() {
        return failedRuns.sum();
    }

    public long deletedObjects() {
        return deletedObjects.sum();
    }

    public long deletedBytes() {
        return deletedBytes.sum();
    }

    public long deadStreamsCleared() {
        return deadStreamsCleared.sum();
    }

    public boolean leaseHeld() {
        return leaseHeld;
    }

    public Optional<Instant> lastRunEnd() {
        return Optional.ofNullable(lastRunEnd);
    }

    public Optional<Instant> lastSuccess() {
        return Optional.ofNullable(lastSuccess);
    }

    public Duration lastRunDuration() {
        return lastRunDuration;
    }

    /** When and what last went wrong, e.g. {@code 2026-12-01T21:00:00Z: ObjectStoreUnavailableException: ...}. */
    public Optional<String> lastError() {
        return Optional.ofNullable(lastError);
    }
}
