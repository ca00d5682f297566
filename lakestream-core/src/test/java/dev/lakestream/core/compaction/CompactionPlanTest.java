package dev.lakestream.core.compaction;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lakestream.core.index.IndexKey;
import dev.lakestream.core.index.IndexRecord;
import dev.lakestream.core.index.IndexValue;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Which step compaction takes, from a stream's records alone. */
class CompactionPlanTest {

    private static final long SID = 7;

    /** A WAL record of {@code messages} one-message entries of 100 bytes each, ending at {@code end}, committed at t. */
    private static IndexRecord wal(long end, int messages, long t) {
        int[] counts = new int[messages];
        java.util.Arrays.fill(counts, 1);
        return new IndexRecord(
                new IndexKey(SID, end, end * 100),
                new IndexValue("2026/12/04/00/00/00/" + end, false, messages, messages * 100L, 1000, counts, Map.of()),
                t,
                1);
    }

    private static IndexRecord compacted(long start, long end) {
        return new IndexRecord(
                new IndexKey(SID, end, end * 100),
                IndexValue.compacted(
                        "segments/7/" + start + "-" + end,
                        101,
                        end - start,
                        (end - start) * 100,
                        10,
                        (int) (end - start),
                        Map.of()),
                0,
                1);
    }

    /** Records of 10 messages each, ends 10, 20, ..., committed at times 1, 2, .... */
    private static List<IndexRecord> walRecords(int n) {
        List<IndexRecord> out = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
            out.add(wal(i * 10L, 10, i));
        }
        return out;
    }

    @Test
    void oldRecordsUpToTheSegmentSizeFormTheRangeTheLastOneToo() {
        List<IndexRecord> records = walRecords(6);
        CompactionPlan.Range range = (CompactionPlan.Range)
                CompactionPlan.next(records, true, 100, 1 << 30).orElseThrow();
        // The stream's last record too, once old enough: else it pins its WAL object while the stream is idle.
        assertThat(range.records()).isEqualTo(records);
        assertThat(range.firstOffset()).isZero();
        assertThat(range.endOffset()).isEqualTo(60);
    }

    @Test
    void theRangeEndsAtTheFirstRecordTooYoungAndAtTheSegmentSize() {
        List<IndexRecord> records = walRecords(6);
        assertThat(((CompactionPlan.Range)
                                CompactionPlan.next(records, true, 3, 1 << 30).orElseThrow())
                        .records())
                .isEqualTo(records.subList(0, 3));
        // 1000 bytes per record: a 2500-byte segment takes three, the third crossing the size.
        assertThat(((CompactionPlan.Range)
                                CompactionPlan.next(records, true, 100, 2500).orElseThrow())
                        .records())
                .isEqualTo(records.subList(0, 3));
        assertThat(CompactionPlan.next(records, true, 0, 2500)).isEmpty();
    }

    @Test
    void walRecordsBelowACompactedRecordThatCoversThemAreLeftovers() {
        // A switch of [0, 40) that stopped after overwriting the record ending at 40.
        List<IndexRecord> records = new ArrayList<>(walRecords(3));
        records.add(compacted(0, 40));
        records.add(wal(50, 10, 5));
        records.add(wal(60, 10, 6));
        CompactionPlan.Leftovers l = (CompactionPlan.Leftovers)
                CompactionPlan.next(records, true, 100, 1 << 30).orElseThrow();
        assertThat(l.compacted()).isEqualTo(records.get(3));
        assertThat(l.records()).isEqualTo(records.subList(0, 3));
    }

    @Test
    void aRangeNeverRunsIntoACompactedRecord() {
        List<IndexRecord> records = new ArrayList<>();
        records.add(wal(10, 10, 1));
        records.add(wal(20, 10, 2));
        records.add(compacted(20, 40));
        records.add(wal(50, 10, 5));
        records.add(wal(60, 10, 6));
        Optional<CompactionPlan> plan = CompactionPlan.next(records, true, 100, 1 << 30);
        assertThat(((CompactionPlan.Range) plan.orElseThrow()).records()).isEqualTo(records.subList(0, 2));
    }

    /** Compacted records of {@code size} payload bytes each, 10 messages each, from offset 0. */
    private static List<IndexRecord> segments(long... sizes) {
        List<IndexRecord> out = new ArrayList<>();
        long at = 0;
        for (long size : sizes) {
            out.add(new IndexRecord(
                    new IndexKey(SID, at + 10, at * 100),
                    IndexValue.compacted("segments/7/" + at, 101, 10, size, size, 10, Map.of()),
                    0,
                    1));
            at += 10;
        }
        return out;
    }

    @Test
    void upToFourSmallSegmentsMergeWhenNoneOutweighsTheOthers() {
        List<IndexRecord> five = segments(1000, 1200, 900, 1000, 5000);
        CompactionPlan.Range merge =
                (CompactionPlan.Range) CompactionPlan.merge(five, 1 << 20).orElseThrow();
        assertThat(merge.merges()).isTrue();
        assertThat(merge.records()).isEqualTo(five.subList(0, 4));
        // Two equal ones merge; one alone does not.
        assertThat(((CompactionPlan.Range) CompactionPlan.merge(segments(1000, 1000), 1 << 20)
                                .orElseThrow())
                        .records())
                .hasSize(2);
        assertThat(CompactionPlan.merge(segments(1000), 1 << 20)).isEmpty();
    }

    @Test
    void aSegmentLargerThanTheOthersTogetherIsNotRewrittenForThem() {
        // 16,000 outweighs the three after it: those merge alone, the big one stays.
        List<IndexRecord> tiers = segments(16_000, 1000, 1000, 1000);
        assertThat(((CompactionPlan.Range) CompactionPlan.merge(tiers, 1 << 20).orElseThrow()).records())
                .isEqualTo(tiers.subList(1, 4));
        // A doubling run never merges: each outweighs those before it.
        assertThat(CompactionPlan.merge(segments(1 << 12, 1 << 13, 1 << 14, 1 << 15), 1 << 20))
                .isEmpty();
        // Nor beyond the segment size together.
        assertThat(CompactionPlan.merge(segments(600, 600), 1000)).isEmpty();
        // Tiny ones count as the floor (segmentSize / 1024): a big one among them is weighed against that.
        assertThat(CompactionPlan.merge(segments(1, 1, 1, 3 << 20), 1L << 30)).isPresent();
    }

    @Test
    void aStoppedMergeIsFinishedFirst() {
        List<IndexRecord> four = segments(1000, 1000, 1000, 1000);
        // The merge overwrote the record ending at 40 with one covering [0, 40); the three below stay.
        List<IndexRecord> stopped = new ArrayList<>(four.subList(0, 3));
        stopped.add(compacted(0, 40));
        CompactionPlan.Leftovers l = (CompactionPlan.Leftovers)
                CompactionPlan.merge(stopped, 1 << 20).orElseThrow();
        assertThat(l.compacted()).isEqualTo(stopped.get(3));
        assertThat(l.records()).isEqualTo(four.subList(0, 3));
    }
}
