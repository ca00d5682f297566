package dev.lakestream.core.index;

import dev.lakestream.core.metadata.Comparison;
import dev.lakestream.core.metadata.GetOptions;
import dev.lakestream.core.metadata.MetadataStore;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Reads a stream's offset index in the metadata store. Every call goes to the one shard of the stream's
 * partition key.
 */
public final class OffsetIndex {

    private final MetadataStore metadata;

    public OffsetIndex(MetadataStore metadata) {
        this.metadata = metadata;
    }

    /**
     * Up to {@code limit} records in offset order, starting with the one covering {@code offset}
     * (the first whose end offset is past it). Empty when nothing at or after {@code offset} is committed.
     */
    public CompletableFuture<List<IndexRecord>> recordsFrom(long streamId, long offset, int limit) {
        return metadata.rangeScan(
                        IndexKey.coveringSearchKey(streamId, offset),
                        IndexKey.highest(streamId),
                        Optional.of(IndexKey.partitionKey(streamId)),
                        limit)
                .thenApply(records -> records.stream()
                        .filter(r -> IndexKey.belongsTo(r.key(), streamId))
                        .map(IndexRecord::of)
                        .toList());
    }

    /** Records asked for per scan when {@link #payloadBytes} walks a range. */
    static final int PAYLOAD_SCAN_PAGE = 1000;

    /**
     * Payload bytes of the entries that start in {@code [from, to)}, from the index alone (no object is read). Exact
     * for records wholly inside the range; a record partly inside counts its share of entries at its average entry
     * size (a compacted record, whose entries the index does not list, its share of records). Walks the range a page of records at a time, each page going on from where the last one ended.
     */
    public CompletableFuture<Long> payloadBytes(long streamId, long from, long to) {
        return payloadBytes(streamId, from, to, 0L);
    }

    private CompletableFuture<Long> payloadBytes(long streamId, long from, long to, long sum) {
        if (from >= to) {
            return CompletableFuture.completedFuture(sum);
        }
        return recordsFrom(streamId, from, PAYLOAD_SCAN_PAGE).thenCompose(records -> {
            long total = sum;
            long next = to;
            for (IndexRecord r : records) {
                if (r.value().isCompacted()) {
                    // Entries are located by the segment: count the share of the range by records instead.
                    long inside = Math.max(0, Math.min(to, r.endOffset()) - Math.max(from, r.startOffset()));
                    long messages = Math.max(1, r.value().messageCount());
                    total += inside >= messages
                            ? r.value().entrySizeBytes()
                            : (long) ((double) r.value().entrySizeBytes() * inside / messages);
                    if (r.endOffset() >= to) {
                        return CompletableFuture.completedFuture(total);
                    }
                    next = r.endOffset();
                    continue;
                }
                long[] offsets = r.entryOffsets();
                int inside = 0;
                for (long offset : offsets) {
                    if (offset >= from && offset < to) {
                        inside++;
                    }
                }
                if (inside == offsets.length) {
                    total += r.value().entrySizeBytes();
                } else if (inside > 0) {
                    total += r.value().entrySizeBytes() * inside / offsets.length;
                }
                if (r.endOffset() >= to) {
                    return CompletableFuture.completedFuture(total);
                }
                next = r.endOffset();
            }
            // A short page is the index's end; a full one goes on from where it ended.
            return records.size() < PAYLOAD_SCAN_PAGE || next <= from
                    ? CompletableFuture.completedFuture(total)
                    : payloadBytes(streamId, next, to, total);
        });
    }

    /** The stream's last record, or empty when it has none. Its end offset is the stream's end offset. */
    public CompletableFuture<Optional<IndexRecord>> last(long streamId) {
        return edge(streamId, IndexKey.highest(streamId), Comparison.LOWER);
    }

    /** The stream's first surviving record, or empty when it has none. */
    public CompletableFuture<Optional<IndexRecord>> first(long streamId) {
        return edge(streamId, IndexKey.lowest(streamId), Comparison.HIGHER);
    }

    /** Records scanned per page by {@link #firstWal}. */
    static final int WAL_SCAN_PAGE = 256;

    /**
     * The stream's first record that points at a WAL object (not a compacted segment), or empty when it has none: the
     * oldest WAL object the stream still needs.
     */
    public CompletableFuture<Optional<IndexRecord>> firstWal(long streamId) {
        return first(streamId)
                .thenCompose(first -> first.isEmpty() || !first.get().value().isCompacted()
                        ? CompletableFuture.completedFuture(first)
                        : firstWalFrom(streamId, first.get().endOffset()));
    }

    private CompletableFuture<Optional<IndexRecord>> firstWalFrom(long streamId, long offset) {
        return recordsFrom(streamId, offset, WAL_SCAN_PAGE).thenCompose(records -> {
            for (IndexRecord r : records) {
                if (!r.value().isCompacted()) {
                    return CompletableFuture.completedFuture(Optional.of(r));
                }
            }
            return records.size() < WAL_SCAN_PAGE
                    ? CompletableFuture.completedFuture(Optional.<IndexRecord>empty())
                    : firstWalFrom(streamId, records.get(records.size() - 1).endOffset());
        });
    }

    /** The offset the next append will get: the end offset of the last record, 0 for a new stream. */
    public CompletableFuture<Long> endOffset(long streamId) {
        return last(streamId).thenApply(r -> r.map(IndexRecord::endOffset).orElse(0L));
    }

    private CompletableFuture<Optional<IndexRecord>> edge(long streamId, String from, Comparison comparison) {
        return metadata.get(from, GetOptions.of(comparison).partitionKey(IndexKey.partitionKey(streamId)))
                .thenApply(r ->
                        r.filter(rec -> IndexKey.belongsTo(rec.key(), streamId)).map(IndexRecord::of));
    }
}
