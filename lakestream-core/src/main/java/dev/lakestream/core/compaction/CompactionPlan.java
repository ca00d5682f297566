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

    /** Contiguous WAL records to copy into one segment. */
    record Range(List<IndexRecord> records) implements CompactionPlan {
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

    /**
     * The next step for a stream whose records from its first WAL record on are {@code records} (in offset order; the
     * scan may end before the stream does, {@code complete} says whether it reached the stream's last record).
     *
     * <ul>
     *   <li>WAL records that a later compacted record covers whole are leftovers;
     *   <li>else a range: the leading WAL records committed at or before {@code committedBefore} (ms since the epoch),
     *       up to the first whose payload takes the range to {@code segmentSize}, never the stream's last record (it is
     *       the writer's: its lost-commit resolution reads it), never past a compacted record.
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
        int usable = complete ? records.size() - 1 : records.size(); // the stream's last record stays WAL
        for (int i = 0; i < usable; i++) {
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
