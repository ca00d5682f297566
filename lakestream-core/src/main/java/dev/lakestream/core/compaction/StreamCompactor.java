package dev.lakestream.core.compaction;

import dev.lakestream.core.index.IndexRecord;
import dev.lakestream.core.index.OffsetIndex;
import dev.lakestream.core.log.LogEntry;
import dev.lakestream.core.segment.SegmentFile;
import dev.lakestream.core.segment.SegmentFormat;
import dev.lakestream.core.segment.SegmentWriter;
import dev.lakestream.core.wal.WalReader;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * One step of compacting one stream: reads its records from the first WAL one on, lets {@link CompactionPlan} decide,
 * and carries it out: copies a range's entries into a segment (read through a {@link WalReader}, written by the
 * format's {@link SegmentWriter} on {@code worker}, never on the thread that completed a read) and switches the index
 * to it, or deletes a stopped switch's leftovers. Holds no state between steps.
 */
final class StreamCompactor {

    /** Records scanned per step: enough to find a segment's worth of small records. */
    static final int SCAN = 1000;

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
            LEFTOVERS_DELETED
        }
    }

    private final OffsetIndex index;
    private final WalReader reader;
    private final SegmentSwitch segmentSwitch;
    private final SegmentFormat format;
    private final CompactionConfig config;
    private final Clock clock;
    private final Executor worker;

    StreamCompactor(
            OffsetIndex index,
            WalReader reader,
            SegmentSwitch segmentSwitch,
            SegmentFormat format,
            CompactionConfig config,
            Clock clock,
            Executor worker) {
        this.index = index;
        this.reader = reader;
        this.segmentSwitch = segmentSwitch;
        this.format = format;
        this.config = config;
        this.clock = clock;
        this.worker = worker;
    }

    CompletableFuture<Step> step(long streamId) {
        return index.firstWal(streamId)
                .thenCompose(first -> first.isEmpty()
                        ? CompletableFuture.completedFuture(new Step(streamId, Step.Kind.NOTHING, 0, 0, 0, 0, 0, 0))
                        : index.recordsFrom(streamId, first.get().startOffset(), SCAN)
                                .thenComposeAsync(records -> carryOut(streamId, records), worker));
    }

    private CompletableFuture<Step> carryOut(long streamId, List<IndexRecord> records) {
        long now = clock.millis();
        long lag = records.isEmpty() ? 0 : Math.max(0, now - records.get(0).timestamp());
        // What is not compacted yet, as far as the scan reaches (a lower bound past SCAN records).
        long lagBytes = records.stream()
                .filter(r -> !r.value().isCompacted())
                .mapToLong(r -> r.value().entrySizeBytes())
                .sum();
        Optional<CompactionPlan> plan = CompactionPlan.next(
                records, records.size() < SCAN, now - config.delay().toMillis(), config.segmentSize());
        if (plan.isEmpty()) {
            return CompletableFuture.completedFuture(new Step(streamId, Step.Kind.NOTHING, 0, 0, 0, 0, lag, lagBytes));
        }
        if (plan.get() instanceof CompactionPlan.Leftovers l) {
            return segmentSwitch
                    .deleteLeftovers(l.compacted(), l.records())
                    .thenApply(v -> new Step(
                            streamId, Step.Kind.LEFTOVERS_DELETED, l.records().size(), 0, 0, 0, lag, lagBytes));
        }
        CompactionPlan.Range range = (CompactionPlan.Range) plan.get();
        return copy(streamId, range)
                .thenCompose(file -> segmentSwitch
                        .commit(range.records(), file, format)
                        .thenApply(r -> new Step(
                                streamId,
                                Step.Kind.SEGMENT_WRITTEN,
                                range.records().size(),
                                file.entries(),
                                file.payloadBytes(),
                                file.size(),
                                lag,
                                Math.max(0, lagBytes - file.payloadBytes()))));
    }

    /** The range's entries in one segment. */
    private CompletableFuture<SegmentFile> copy(long streamId, CompactionPlan.Range range) {
        SegmentWriter writer = format.newWriter(streamId, range.firstOffset());
        return copyFrom(writer, streamId, range.firstOffset(), range.endOffset())
                .handle((v, e) -> {
                    try (writer) {
                        if (e != null) {
                            throw e instanceof RuntimeException r ? r : new java.util.concurrent.CompletionException(e);
                        }
                        return writer.finish();
                    }
                });
    }

    private CompletableFuture<Void> copyFrom(SegmentWriter writer, long streamId, long at, long end) {
        int entries = (int) Math.min(1000, end - at);
        return reader.read(streamId, at, entries, READ_BYTES)
                .thenComposeAsync(
                        read -> {
                            long next = at;
                            try {
                                for (LogEntry e : read) {
                                    if (e.offset() < end) {
                                        writer.append(e);
                                        next = e.endOffset();
                                    }
                                }
                            } finally {
                                read.forEach(e -> e.payload().release());
                            }
                            if (next == at) {
                                return CompletableFuture.failedFuture(new IllegalStateException("stream " + streamId
                                        + ": no entry at offset " + at + " while compacting up to " + end));
                            }
                            return next >= end
                                    ? CompletableFuture.completedFuture(null)
                                    : copyFrom(writer, streamId, next, end);
                        },
                        worker);
    }
}
