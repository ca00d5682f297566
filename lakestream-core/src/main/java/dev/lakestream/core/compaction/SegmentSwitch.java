package dev.lakestream.core.compaction;

import dev.lakestream.core.concurrent.Futures;
import dev.lakestream.core.index.IndexKey;
import dev.lakestream.core.index.IndexRecord;
import dev.lakestream.core.index.IndexValue;
import dev.lakestream.core.index.VoidedRanges;
import dev.lakestream.core.metadata.DeleteOptions;
import dev.lakestream.core.metadata.MetadataStore;
import dev.lakestream.core.metadata.PutOptions;
import dev.lakestream.core.metadata.UnexpectedVersionException;
import dev.lakestream.core.segment.SegmentFile;
import dev.lakestream.core.segment.SegmentFormat;
import dev.lakestream.core.trim.StreamTrimmer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;

/**
 * Moves a range of one stream's WAL records to a segment, in steps that leave every offset readable from exactly one
 * place that can still be read (docs/design/stream-compaction.md, "The switch"):
 * <ol>
 *   <li>store the segment (a new key; its writer uploads it before the switch starts, see {@link SegmentFile}: a
 *       crash after the upload leaves an orphan segment, which no record names);</li>
 *   <li>note the covered WAL objects for GC ({@code <root>/gc/released/}), as a hard trim does;</li>
 *   <li>overwrite the range's last WAL record, at key {@code K(b)}, with the compacted record, conditional on the
 *       version read when the range was planned (a trim, an append's retry or another compaction since: refused, and
 *       nothing changed but an orphan segment). Same key, so the stream's end and counters stay;</li>
 *   <li>delete the covered records below {@code K(b)}, each only if unchanged since planned. Until then they still
 *       find their WAL records, which hold the same entries and whose objects GC keeps.</li>
 * </ol>
 * Not yet: the compactor's epoch guard on step 3 (the compactor, next, commits under the stream owner's fence).
 */
public final class SegmentSwitch {

    private final MetadataStore metadata;
    private final String releasedPrefix;

    public SegmentSwitch(MetadataStore metadata, String metadataRoot) {
        this.metadata = metadata;
        this.releasedPrefix = StreamTrimmer.releasedPrefix(metadataRoot);
    }

    /**
     * Switches the records {@code covered} (contiguous, in offset order, as read when the range was planned: WAL
     * records, or small compacted ones being merged) to the segment {@code file} of {@code format}, stored already,
     * which holds exactly their entries. Completes with the compacted
     * record; fails with {@link dev.lakestream.core.metadata.UnexpectedVersionException} when the last record changed
     * since it was read.
     */
    public CompletableFuture<IndexRecord> commit(List<IndexRecord> covered, SegmentFile file, SegmentFormat format) {
        return commit(covered, file, format, new VoidedRanges());
    }

    /** As {@link #commit(List, SegmentFile, SegmentFormat)}, for a segment holding the void entries {@code voided}. */
    public CompletableFuture<IndexRecord> commit(
            List<IndexRecord> covered, SegmentFile file, SegmentFormat format, VoidedRanges voided) {
        check(covered, file);
        IndexRecord last = covered.get(covered.size() - 1);
        long streamId = last.streamId();
        IndexValue value = IndexValue.compacted(
                file.key(),
                format.fileType(),
                file.messages(),
                file.payloadBytes(),
                file.size(),
                file.entries(),
                extra(voided));
        String pk = IndexKey.partitionKey(streamId);
        return noteReleased(streamId, covered)
                .thenCompose(v -> metadata.put(
                        last.key().format(),
                        value.encode(),
                        PutOptions.ifVersion(last.versionId()).partitionKey(pk)))
                .thenCompose(put -> deleteBelow(covered)
                        .thenApply(v -> new IndexRecord(
                                last.key(),
                                value,
                                put.version().createdTimestamp(),
                                put.version().versionId())));
    }

    /** The compacted record's extra data: the ranges of void entries its segment holds, if any. */
    private static Map<String, String> extra(VoidedRanges voided) {
        return voided.isEmpty() ? Map.of() : Map.of(IndexValue.EXTRA_VOIDED, voided.encode());
    }

    /**
     * Replaces the compacted record {@code compacted}, which a trim has cut into, with one of its tail: the segment
     * {@code file} (stored already) holds the record's entries from {@code file.firstOffset()} (above the record's
     * start) to its end.
     * The old segment is noted for GC; the overwrite is conditional on the record's version as read.
     */
    public CompletableFuture<IndexRecord> rewriteTail(
            IndexRecord compacted, SegmentFile file, SegmentFormat format, VoidedRanges voided) {
        if (!compacted.value().isCompacted()
                || file.streamId() != compacted.streamId()
                || file.endOffset() != compacted.endOffset()
                || file.firstOffset() <= compacted.startOffset()) {
            throw new IllegalArgumentException("segment of stream " + file.streamId() + " covering ["
                    + file.firstOffset() + ", " + file.endOffset() + ") is not a tail of compacted record "
                    + compacted.key().format());
        }
        long streamId = compacted.streamId();
        IndexValue value = IndexValue.compacted(
                file.key(),
                format.fileType(),
                file.messages(),
                file.payloadBytes(),
                file.size(),
                file.entries(),
                extra(voided));
        return noteReleased(streamId, List.of(compacted))
                .thenCompose(v -> metadata.put(
                        compacted.key().format(),
                        value.encode(),
                        PutOptions.ifVersion(compacted.versionId()).partitionKey(IndexKey.partitionKey(streamId))))
                .thenApply(put -> new IndexRecord(
                        compacted.key(),
                        value,
                        put.version().createdTimestamp(),
                        put.version().versionId()));
    }

    /**
     * Deletes the records left below a compacted record (a switch or a merge that stopped after its overwrite): step 4
     * again.
     * {@code leftovers} are the records found below it, in order.
     */
    public CompletableFuture<Void> deleteLeftovers(IndexRecord compacted, List<IndexRecord> leftovers) {
        if (leftovers.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        for (IndexRecord r : leftovers) {
            if (r.streamId() != compacted.streamId()
                    || r.startOffset() < compacted.startOffset()
                    || r.endOffset() >= compacted.endOffset()) {
                throw new IllegalArgumentException("index record " + r.key().format() + " is not a WAL leftover below "
                        + compacted.key().format());
            }
        }
        return noteReleased(compacted.streamId(), leftovers).thenCompose(v -> deleteUnchanged(leftovers));
    }

    private CompletableFuture<Void> deleteBelow(List<IndexRecord> covered) {
        return deleteUnchanged(covered.subList(0, covered.size() - 1));
    }

    /** Deletes in parallel requests, at most this many in flight. */
    static final int DELETES_IN_FLIGHT = 32;

    /**
     * Deletes each record only if it is still the version read when the range was planned, one conditional delete per
     * key, not a range delete: a record that changed since (another switch made it compacted, a trim removed it) is
     * not this switch's to delete. A range delete here could remove a concurrent switch's compacted record whose range
     * reaches below this one's, and leave offsets no record covers; with conditional deletes two switches of
     * overlapping ranges leave overlapping compacted records, which read correctly (each read starts at its offset).
     */
    private CompletableFuture<Void> deleteUnchanged(List<IndexRecord> records) {
        CompletableFuture<Void> chain = CompletableFuture.completedFuture(null);
        for (int from = 0; from < records.size(); from += DELETES_IN_FLIGHT) {
            List<IndexRecord> part = records.subList(from, Math.min(records.size(), from + DELETES_IN_FLIGHT));
            chain = chain.thenCompose(v -> CompletableFuture.allOf(part.stream()
                    .map(r -> metadata.delete(
                                    r.key().format(),
                                    DeleteOptions.ifVersion(r.versionId())
                                            .partitionKey(IndexKey.partitionKey(r.streamId())))
                            .<Void>thenApply(deleted -> null)
                            .exceptionallyCompose(e -> Futures.unwrap(e) instanceof UnexpectedVersionException
                                    ? CompletableFuture.completedFuture(null)
                                    : CompletableFuture.failedFuture(Futures.unwrap(e))))
                    .toArray(CompletableFuture[]::new)));
        }
        return chain;
    }

    /**
     * One note of the covered records' objects, keyed by the range's end and a random suffix: two releases at one
     * record's end (a tail rewritten twice, a merge after a switch) and a trim's note must not overwrite each other,
     * or the objects of the first would never be collected.
     */
    private CompletableFuture<Void> noteReleased(long streamId, List<IndexRecord> records) {
        String keys = records.stream().map(r -> r.value().location()).distinct().collect(Collectors.joining("\n"));
        return metadata.put(
                        releasedPrefix + streamId + "-"
                                + records.get(records.size() - 1).endOffset() + "-"
                                + UUID.randomUUID().toString().substring(0, 8),
                        keys.getBytes(StandardCharsets.UTF_8))
                .thenApply(p -> null);
    }

    private static void check(List<IndexRecord> covered, SegmentFile file) {
        if (covered.isEmpty()) {
            throw new IllegalArgumentException("a switch needs the WAL records it replaces");
        }
        long expected = covered.get(0).startOffset();
        long streamId = covered.get(0).streamId();
        for (IndexRecord r : covered) {
            if (r.streamId() != streamId || r.startOffset() != expected) {
                throw new IllegalArgumentException("records to switch must be one stream's contiguous records;"
                        + " index record " + r.key().format() + " is not (expected a record of stream " + streamId
                        + " from offset " + expected + ")");
            }
            expected = r.endOffset();
        }
        if (file.streamId() != streamId
                || file.firstOffset() != covered.get(0).startOffset()
                || file.endOffset() != expected) {
            throw new IllegalArgumentException("segment of stream " + file.streamId() + " covering ["
                    + file.firstOffset() + ", " + file.endOffset() + ") does not match the records of stream "
                    + streamId + " covering [" + covered.get(0).startOffset() + ", " + expected + ")");
        }
    }
}
