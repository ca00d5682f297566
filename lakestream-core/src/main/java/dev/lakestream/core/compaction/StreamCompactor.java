package dev.lakestream.core.compaction;

import dev.lakestream.core.concurrent.Futures;
import dev.lakestream.core.index.IndexRecord;
import dev.lakestream.core.index.OffsetIndex;
import dev.lakestream.core.index.VoidedRanges;
import dev.lakestream.core.log.LogEntry;
import dev.lakestream.core.objectstore.ObjectStore;
import dev.lakestream.core.objectstore.ObjectUpload;
import dev.lakestream.core.segment.SegmentFile;
import dev.lakestream.core.segment.SegmentFormat;
import dev.lakestream.core.segment.SegmentKeys;
import dev.lakestream.core.segment.SegmentWriter;
import dev.lakestream.core.wal.WalReader;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.LongFunction;

/**
 * One step of compacting one stream: reads its records from the first WAL one on, lets {@link CompactionPlan} decide,
 * and carries it out: copies a range's entries into a segment (read through a {@link WalReader}, written by the
 * format's {@link SegmentWriter} on {@code worker}, never on the thread that completed a read) and switches the index
 * to it, or deletes a stopped switch's leftovers. Holds no state between steps.
 *
 * <p>Memory: a step never holds a segment whole. It reads {@value #READ_BYTES} bytes of entries at a time and hands
 * them to the writer one by one, which encodes a row group at a time and streams the object into an
 * {@link ObjectUpload}; after an entry that leaves the writer not {@linkplain SegmentWriter#ready() ready} (the upload
 * holding more than its own buffer) it waits before the next. The object becomes visible when the upload completes, before the switch; a failed step aborts its upload.
 */
final class StreamCompactor {

    /** Records scanned per step: enough to find a segment's worth of small records. */
    static final int SCAN = 1000;

    /** Leading records scanned for merges: more than a stream keeps small segments (merging bounds them). */
    static final int MERGE_SCAN = 64;

    /** Bytes asked for per read while copying a range. */
    static final long READ_BYTES = 8L << 20;

    /** What a step did. */
    record Step(
            long streamId,
            Kind kind,
            int records,
            long entries,
            long payloadBytes,
            long segmentBytes,
            long lagMillis,
            long lagBytes) {
        enum Kind {
            NOTHING,
            SEGMENT_WRITTEN,
            SEGMENTS_MERGED,
            TAIL_REWRITTEN,
            LEFTOVERS_DELETED
        }
    }

    private final OffsetIndex index;
    private final WalReader reader;
    private final ObjectStore objects;
    private final SegmentSwitch segmentSwitch;
    private final SegmentFormat format;
    private final CompactionConfig config;
    private final Clock clock;
    private final Executor worker;
    private final LongFunction<CompletableFuture<Long>> startOffsets;

    /** @param startOffsets a stream's start (its trim point): records below it are about to be deleted, not copied */
    StreamCompactor(
            OffsetIndex index,
            LongFunction<CompletableFuture<Long>> startOffsets,
            WalReader reader,
            ObjectStore objects,
            SegmentSwitch segmentSwitch,
            SegmentFormat format,
            CompactionConfig config,
            Clock clock,
            Executor worker) {
        this.index = index;
        this.startOffsets = startOffsets;
        this.reader = reader;
        this.objects = objects;
        this.segmentSwitch = segmentSwitch;
        this.format = format;
        this.config = config;
        this.clock = clock;
        this.worker = worker;
    }

    /** One step: compact the oldest WAL range old enough, or finish a stopped switch. */
    CompletableFuture<Step> step(long streamId) {
        // From the first WAL record, or the stream's start if a trim moved it past: what is trimmed is not copied.
        return index.firstWal(streamId)
                .thenCombine(
                        startOffsets.apply(streamId),
                        (first, start) -> first.map(r -> Math.max(r.startOffset(), start)))
                .thenCompose(from -> from.isEmpty()
                        ? CompletableFuture.completedFuture(new Step(streamId, Step.Kind.NOTHING, 0, 0, 0, 0, 0, 0))
                        : index.recordsFrom(streamId, from.get(), SCAN)
                                .thenApply(records -> records.stream()
                                        .filter(r -> r.startOffset() >= from.get()
                                                || r.value().isCompacted())
                                        .toList())
                                .thenComposeAsync(records -> walStep(streamId, records), worker));
    }

    private CompletableFuture<Step> walStep(long streamId, List<IndexRecord> records) {
        long now = clock.millis();
        long lag = records.isEmpty() ? 0 : Math.max(0, now - records.get(0).timestamp());
        // What is not compacted yet, as far as the scan reaches (a lower bound past SCAN records).
        long lagBytes = records.stream()
                .filter(r -> !r.value().isCompacted())
                .mapToLong(r -> r.value().entrySizeBytes())
                .sum();
        Optional<CompactionPlan> plan = CompactionPlan.next(
                records, records.size() < SCAN, now - config.delay().toMillis(), config.segmentSize());
        return carryOut(streamId, plan, new Step(streamId, Step.Kind.NOTHING, 0, 0, 0, 0, lag, lagBytes));
    }

    /** One merge of the stream's small leading segments (those before its first WAL record), or a stopped one's end. */
    /**
     * Rewrites the compacted record the stream's trim point cuts into, when the trim has passed at least half of it,
     * as a segment of its tail alone (from the entry holding the trim point). A trim deletes only records wholly
     * below it and keeps the stream's last record (its key holds the stream's end), so without this a stream
     * trimmed to its end (a consumed topic without retention) would keep its whole last segment.
     */
    CompletableFuture<Step> trimTail(long streamId) {
        Step nothing = new Step(streamId, Step.Kind.NOTHING, 0, 0, 0, 0, 0, 0);
        return startOffsets
                .apply(streamId)
                .thenCombine(index.last(streamId), (start, last) -> new Object[] {start, last})
                .thenCompose(pair -> {
                    long start = (Long) pair[0];
                    @SuppressWarnings("unchecked")
                    Optional<IndexRecord> last = (Optional<IndexRecord>) pair[1];
                    if (last.isEmpty() || start <= 0) {
                        return CompletableFuture.completedFuture(nothing);
                    }
                    // Trimmed to its end: the last entry is all the stream must keep (its end offset).
                    long probe = Math.min(start, last.get().endOffset() - 1);
                    return index.recordsFrom(streamId, probe, 1)
                            .thenComposeAsync(
                                    records -> {
                                        if (records.isEmpty()) {
                                            return CompletableFuture.completedFuture(nothing);
                                        }
                                        IndexRecord r = records.get(0);
                                        long trimmed = start - r.startOffset();
                                        if (!r.value().isCompacted()
                                                || trimmed * 2 < r.value().messageCount()) {
                                            return CompletableFuture.completedFuture(nothing);
                                        }
                                        return rewriteTail(streamId, r, probe, nothing);
                                    },
                                    worker);
                });
    }

    private CompletableFuture<Step> rewriteTail(long streamId, IndexRecord r, long probe, Step nothing) {
        return reader.read(streamId, probe, 1, 1)
                .thenComposeAsync(
                        first -> {
                            long from;
                            try {
                                if (first.isEmpty()) {
                                    return CompletableFuture.completedFuture(nothing);
                                }
                                from = first.get(0).offset();
                            } finally {
                                first.forEach(e -> e.payload().release());
                            }
                            if (from <= r.startOffset()) {
                                return CompletableFuture.completedFuture(nothing);
                            }
                            return writeSegment(streamId, from, r.endOffset())
                                    .thenCompose(copied -> segmentSwitch
                                            .rewriteTail(r, copied.file(), format, copied.voided())
                                            .thenApply(rec -> new Step(
                                                    streamId,
                                                    Step.Kind.TAIL_REWRITTEN,
                                                    1,
                                                    copied.file().entries(),
                                                    copied.file().payloadBytes(),
                                                    copied.file().size(),
                                                    0,
                                                    0)));
                        },
                        worker);
    }

    CompletableFuture<Step> merge(long streamId) {
        return mergeStep(streamId, new Step(streamId, Step.Kind.NOTHING, 0, 0, 0, 0, 0, 0));
    }

    private CompletableFuture<Step> mergeStep(long streamId, Step nothing) {
        return index.recordsFrom(streamId, 0, SCAN)
                .thenComposeAsync(
                        records -> {
                            List<IndexRecord> leading = new java.util.ArrayList<>();
                            for (IndexRecord r : records) {
                                if (!r.value().isCompacted()) {
                                    break;
                                }
                                leading.add(r);
                            }
                            return carryOut(streamId, CompactionPlan.merge(leading, config.segmentSize()), nothing);
                        },
                        worker);
    }

    /** Carries a plan out; {@code nothing} (what the scan found, with the stream's lag) when there is none. */
    private CompletableFuture<Step> carryOut(long streamId, Optional<CompactionPlan> plan, Step nothing) {
        if (plan.isEmpty()) {
            return CompletableFuture.completedFuture(nothing);
        }
        if (plan.get() instanceof CompactionPlan.Leftovers l) {
            return segmentSwitch
                    .deleteLeftovers(l.compacted(), l.records())
                    .thenApply(v -> new Step(
                            streamId,
                            Step.Kind.LEFTOVERS_DELETED,
                            l.records().size(),
                            0,
                            0,
                            0,
                            nothing.lagMillis(),
                            nothing.lagBytes()));
        }
        CompactionPlan.Range range = (CompactionPlan.Range) plan.get();
        return copy(streamId, range)
                .exceptionallyCompose(e -> Futures.unwrap(e) instanceof RangeGoneException
                        ? CompletableFuture.completedFuture(null)
                        : CompletableFuture.failedFuture(Futures.unwrap(e)))
                .thenCompose(copied -> copied == null
                        ? CompletableFuture.completedFuture(nothing)
                        : commitRange(streamId, range, copied, nothing));
    }

    private CompletableFuture<Step> commitRange(
            long streamId, CompactionPlan.Range range, Copied copied, Step nothing) {
        SegmentFile file = copied.file();
        return segmentSwitch
                .commit(range.records(), file, format, copied.voided())
                .thenApply(r -> new Step(
                        streamId,
                        range.merges() ? Step.Kind.SEGMENTS_MERGED : Step.Kind.SEGMENT_WRITTEN,
                        range.records().size(),
                        file.entries(),
                        file.payloadBytes(),
                        file.size(),
                        nothing.lagMillis(),
                        range.merges() ? nothing.lagBytes() : Math.max(0, nothing.lagBytes() - file.payloadBytes())));
    }

    /** A segment stored, and the ranges of void entries it holds (with empty payloads). */
    private record Copied(SegmentFile file, VoidedRanges voided) {}

    /** The range's entries in one segment. */
    private CompletableFuture<Copied> copy(long streamId, CompactionPlan.Range range) {
        return writeSegment(streamId, range.firstOffset(), range.endOffset());
    }

    /**
     * The entries from {@code from} to {@code end} in one segment, stored under a new key when this completes; on a
     * failure its upload is aborted, so nothing stays at the key (a crash leaves at most an orphan, as before).
     */
    private CompletableFuture<Copied> writeSegment(long streamId, long from, long end) {
        ObjectUpload out = objects.newUpload(SegmentKeys.newKey(streamId, from, end, format.name()));
        SegmentWriter writer;
        try {
            writer = format.newWriter(streamId, from, out);
        } catch (RuntimeException e) {
            return out.abort().thenCompose(v -> CompletableFuture.failedFuture(e));
        }
        CompletableFuture<Copied> stored = new CompletableFuture<>();
        VoidedRanges voided = new VoidedRanges();
        var unused = copyFrom(writer, voided, streamId, from, end)
                .thenApplyAsync(v -> writer.finish(), worker)
                .thenCompose(file -> out.complete().thenApply(v -> file))
                .whenCompleteAsync(
                        (file, e) -> {
                            writer.close();
                            if (e == null) {
                                stored.complete(new Copied(file, voided));
                            } else {
                                // stored fails either way, once nothing of the segment is left in the store.
                                var unusedAbort = out.abort()
                                        .whenComplete((v, x) -> stored.completeExceptionally(Futures.unwrap(e)));
                            }
                        },
                        worker);
        return stored;
    }

    private CompletableFuture<Void> copyFrom(
            SegmentWriter writer, VoidedRanges voided, long streamId, long at, long end) {
        int entries = (int) Math.min(1000, end - at);
        return reader.read(streamId, at, entries, READ_BYTES)
                .thenComposeAsync(read -> appendAll(writer, voided, read, 0, end, at), worker)
                .thenComposeAsync(
                        next -> {
                            if (next == at) {
                                // The range's records went while it was copied (a trim, another compactor's switch).
                                return CompletableFuture.failedFuture(new RangeGoneException(streamId, at, end));
                            }
                            return next >= end
                                    ? CompletableFuture.completedFuture(null)
                                    : copyFrom(writer, voided, streamId, next, end);
                        },
                        worker);
    }

    /**
     * Appends the entries of {@code read} from index {@code from} on that start below {@code end}, releasing each once
     * appended (the writer copies what it keeps); completes with the end of the last one appended ({@code next} if
     * none). When an append leaves the writer not {@linkplain SegmentWriter#ready() ready} (a row group went to an
     * upload still sending the part before), it waits before the next: so the upload holds about two parts and one row
     * group, whatever the segment's size. On a failure the entries not yet appended are released.
     */
    private CompletableFuture<Long> appendAll(
            SegmentWriter writer, VoidedRanges voided, List<LogEntry> read, int from, long end, long next) {
        long last = next;
        for (int i = from; i < read.size(); i++) {
            LogEntry e = read.get(i);
            try {
                if (e.offset() < end) {
                    // A void entry keeps its offsets in the segment, with an empty payload, and its range in the
                    // compacted record: it stays void.
                    writer.append(e);
                    if (e.voided()) {
                        voided.add(e.offset(), e.endOffset());
                    }
                    last = e.endOffset();
                }
            } catch (RuntimeException x) {
                release(read, i);
                return CompletableFuture.failedFuture(x);
            }
            e.payload().release();
            CompletableFuture<Void> ready = writer.ready();
            if (!ready.isDone() || ready.isCompletedExceptionally()) {
                int resume = i + 1;
                long appended = last;
                return ready.handleAsync((v, x) -> x, worker).thenCompose(x -> {
                    if (x != null) {
                        release(read, resume);
                        return CompletableFuture.failedFuture(Futures.unwrap(x));
                    }
                    return appendAll(writer, voided, read, resume, end, appended);
                });
            }
        }
        return CompletableFuture.completedFuture(last);
    }

    private static void release(List<LogEntry> read, int from) {
        for (int i = from; i < read.size(); i++) {
            read.get(i).payload().release();
        }
    }

    /** A range's entries were no longer there when copied: nothing to do, not a failure. */
    static final class RangeGoneException extends RuntimeException {
        RangeGoneException(long streamId, long at, long end) {
            super(
                    "stream " + streamId + ": offsets from " + at + " to " + end
                            + " are gone (trimmed or switched) while being compacted",
                    null,
                    false,
                    false);
        }
    }
}
