package dev.lakestream.core.metrics;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * What this process's compactor did, and how far each stream it compacts lags. Changed only by the compaction
 * service (its one owner) through the transitions below; read by anyone.
 */
public final class CompactionMetrics {

    /** A stream's lag: how old its oldest WAL record is, and how many payload bytes are not compacted yet. */
    public record Lag(long millis, long bytes) {}

    private final LongAdder passes = new LongAdder();
    private final LongAdder segments = new LongAdder();
    private final LongAdder entries = new LongAdder();
    private final LongAdder payloadBytes = new LongAdder();
    private final LongAdder segmentBytes = new LongAdder();
    private final LongAdder leftovers = new LongAdder();
    private final LongAdder merges = new LongAdder();
    private final LongAdder tailRewrites = new LongAdder();
    private final LongAdder mergedSegments = new LongAdder();
    private final LongAdder failures = new LongAdder();
    private final Map<Long, Lag> lag = new ConcurrentHashMap<>();
    private volatile boolean active;
    private volatile String lastError;

    public void active(boolean compacting) {
        active = compacting;
    }

    public void passEnded() {
        passes.increment();
    }

    public void segmentWritten(long entryCount, long payload, long size) {
        segments.increment();
        entries.add(entryCount);
        payloadBytes.add(payload);
        segmentBytes.add(size);
    }

    /** {@code segments} small segments were rewritten as one of {@code size} bytes. */
    public void segmentsMerged(int segments, long size) {
        merges.increment();
        mergedSegments.add(segments);
        segmentBytes.add(size);
    }

    /** A trimmed compacted record was rewritten as its tail, a segment of {@code size} bytes. */
    public void tailRewritten(long size) {
        tailRewrites.increment();
        segmentBytes.add(size);
    }

    public long tailRewrites() {
        return tailRewrites.sum();
    }

    public long merges() {
        return merges.sum();
    }

    public long mergedSegments() {
        return mergedSegments.sum();
    }

    public void leftoversDeleted(int records) {
        leftovers.add(records);
    }

    public void failed(long streamId, Throwable error) {
        failures.increment();
        lastError = "stream " + streamId + ": " + error;
    }

    public void lag(long streamId, long millis, long bytes) {
        lag.put(streamId, new Lag(millis, bytes));
    }

    /** Forgets the lag of streams this process no longer compacts. */
    public void retainLag(Set<Long> streams) {
        lag.keySet().retainAll(streams);
    }

    public boolean active() {
        return active;
    }

    public long passes() {
        return passes.sum();
    }

    public long segments() {
        return segments.sum();
    }

    public long entries() {
        return entries.sum();
    }

    public long payloadBytes() {
        return payloadBytes.sum();
    }

    public long segmentBytes() {
        return segmentBytes.sum();
    }

    public long leftoversDeleted() {
        return leftovers.sum();
    }

    public long failures() {
        return failures.sum();
    }

    public Map<Long, Lag> lag() {
        return Map.copyOf(lag);
    }

    public String lastError() {
        return lastError;
    }
}
