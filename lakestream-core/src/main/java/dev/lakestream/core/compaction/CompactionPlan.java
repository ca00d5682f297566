package dev.lakestream.core.compaction;

import dev.lakestream.core.index.IndexRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What one step of compacting a stream does, decided from the stream's records alone: finish a switch that stopped
 * after its overwrite, or compact the next range. Pure: no I/O.
 */
public sealed interface CompactionPlan {

    /** WAL records left below the compacted record that covers them (a switch stopped before its deletes). */
    record Leftovers(IndexRecord compacted, List<IndexRecord> records) implements CompactionPlan {}

    /** Contiguous records to copy into one segment: WAL records, or small compacted ones merged. */
    record Range(List<IndexRecord> records) implements CompactionPlan {
        public boolean merges() {
            return records.get(0).value().isCompacted();
        }

        public long firstOffset() {
            return records.get(0).startOffset();
        }

        public long endOffset() {
            return records.get(records.size() - 1).endOffset();
        }

        public long payloadBytes() {
            return records.stream().mapToLong(r -> r.value().entrySizeBytes()).sum();
        }
    }

    /** Most segments merged at once. */
    int MERGE_MAX = 4;

    /** Segments below this fraction of the segment size count as this size when merges are weighed. */
    long MERGE_FLOOR_DIVISOR = 1024;

    /**
     * The next merge among a stream's leading compacted records {@code records} (in offset order, from its first record
     * up to its first WAL record): the leftovers of a merge that stopped after its overwrite first; then the first run
     * of 2 to {@value #MERGE_MAX} adjacent, contiguous segments (the longest first) that together hold at most
     * {@code segmentSize} and whose largest is no more than the others together, sizes below
     * {@code segmentSize / }{@value #MERGE_FLOOR_DIVISOR} counted as that floor. A merge's result is then at least twice
     * its largest part, so a byte is rewritten at most {@code log2(}{@value #MERGE_FLOOR_DIVISOR}{@code ) = 10} times
     * (in practice once or twice: passes of similar size merge four at a time), and the small segments left unmerged
     * grow at least geometrically, so a stream keeps a few dozen at most besides its full ones.
     */
    static Optional<CompactionPlan> merge(List<IndexRecord> records, long segmentSize) {
        for (int i = 0; i < records.size(); i++) {
            IndexRecord r = records.get(i);
            List<IndexRecord> below = records.subList(0, i).stream()
                    .filter(c -> c.startOffset() >= r.startOffset() && c.endOffset() < r.endOffset())
                    .toList();
            if (!below.isEmpty()) {
                return Optional.of(new Leftovers(r, below));
            }
        }
        long floor = Math.max(1, segmentSize / MERGE_FLOOR_DIVISOR);
        for (int i = 0; i < records.size(); i++) {
            for (int n = Math.min(MERGE_MAX, records.size() - i); n >= 2; n--) {
                List<IndexRecord> window = records.subList(i, i + n);
                if (mergeable(window, segmentSize, floor)) {
                    return Optional.of(new Range(List.copyOf(window)));
                }
            }
        }
        return Optional.empty();
    }

    private static boolean mergeable(List<IndexRecord> window, long segmentSize, long floor) {
        long sum = 0;
        long weighed = 0;
        long largest = 0;
        for (int k = 0; k < window.size(); k++) {
            IndexRecord c = window.get(k);
            if (!c.value().isCompacted() || (k > 0 && window.get(k - 1).endOffset() != c.startOffset())) {
                return false;
            }
            long size = c.value().entrySizeBytes();
            sum += size;
            weighed += Math.max(size, floor);
            largest = Math.max(largest, Math.max(size, floor));
        }
        return sum <= segmentSize && largest <= weighed - largest;
    }

    /**
     * The next step for a stream whose records from its first WAL record on are {@code records} (in offset order; the
     * scan may end before the stream does, {@code complete} says whether it reached the stream's last record).
     *
     * <ul>
     *   <li>WAL records that a later compacted record covers whole are leftovers;
     *   <li>else a range: the leading WAL records committed at or before {@code committedBefore} (ms since the epoch),
     *       up to the first whose payload takes the range to {@code segmentSize}, never past a compacted record. The
     *       stream's last record too, once it is old enough: left as a WAL record, it would keep its whole WAL object
     *       (shared with other streams) alive for as long as the stream is idle. The delay keeps it from the writer,
     *       whose lost-commit resolution looks for a record within seconds of its commit.
     * </ul>
     */
    static Optional<CompactionPlan> next(
            List<IndexRecord> records, boolean complete, long committedBefore, long segmentSize) {
        // Leftovers: a WAL run followed by a compacted record that starts at or before the run's start.
        List<IndexRecord> run = new ArrayList<>();
        for (IndexRecord r : records) {
            if (!r.value().isCompacted()) {
                run.add(r);
                continue;
            }
            List<IndexRecord> covered = run.stream()
                    .filter(w -> w.startOffset() >= r.startOffset() && w.endOffset() < r.endOffset())
                    .toList();
            if (!covered.isEmpty()) {
                return Optional.of(new Leftovers(r, covered));
            }
            if (!run.isEmpty()) {
                break; // the WAL run before this compacted record is the range to consider
            }
        }
        List<IndexRecord> range = new ArrayList<>();
        long bytes = 0;
        for (int i = 0; i < records.size(); i++) {
            IndexRecord r = records.get(i);
            if (r.value().isCompacted()) {
                if (range.isEmpty()) {
                    continue;
                }
                break;
            }
            if (r.timestamp() > committedBefore) {
                break;
            }
            if (!range.isEmpty() && range.get(range.size() - 1).endOffset() != r.startOffset()) {
                break; // not contiguous (should not happen): compact up to the gap
            }
            range.add(r);
            bytes += r.value().entrySizeBytes();
            if (bytes >= segmentSize) {
                break;
            }
        }
        return range.isEmpty() ? Optional.empty() : Optional.of(new Range(range));
    }
}
