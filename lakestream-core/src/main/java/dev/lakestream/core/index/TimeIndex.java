package dev.lakestream.core.index;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Finds offsets by time, for seek-by-time and TTL. Index records carry the metadata store's commit time,
 * which grows with the key order of one stream (one shard's clock), so a binary search over offsets with
 * one covering lookup per step finds the first record at or after a time in O(log n) reads.
 */
public final class TimeIndex {

    private final OffsetIndex index;

    public TimeIndex(OffsetIndex index) {
        this.index = index;
    }

    /**
     * The first offset in {@code [fromOffset, endOffset)} whose entry was committed at or after
     * {@code timestamp}, or empty when every entry there is older.
     */
    public CompletableFuture<Optional<Long>> firstOffsetAtOrAfter(
            long streamId, long timestamp, long fromOffset, long endOffset) {
        return search(streamId, timestamp, fromOffset, endOffset, Optional.empty());
    }

    private CompletableFuture<Optional<Long>> search(long streamId, long ts, long lo, long hi, Optional<Long> best) {
        if (lo >= hi) {
            return CompletableFuture.completedFuture(best);
        }
        long mid = lo + (hi - lo) / 2;
        return index.recordsFrom(streamId, mid, 1).thenCompose(records -> {
            if (records.isEmpty()) {
                return search(streamId, ts, lo, mid, best);
            }
            IndexRecord r = records.get(0);
            if (r.timestamp() >= ts) {
                long candidate = Math.max(lo, r.startOffset());
                return search(streamId, ts, lo, Math.min(mid, r.startOffset()), Optional.of(candidate));
            }
            return search(streamId, ts, r.endOffset(), hi, best);
        });
    }
}
