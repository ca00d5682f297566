package dev.lakestream.pulsar.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;
import org.apache.bookkeeper.mledger.Entry;
import org.apache.bookkeeper.mledger.ManagedCursor;
import org.apache.bookkeeper.mledger.ManagedLedger;
import org.apache.bookkeeper.mledger.Position;
import org.apache.bookkeeper.mledger.PositionFactory;
import org.apache.pulsar.common.api.proto.CommandSubscribe.InitialPosition;
import org.junit.jupiter.api.Test;

/**
 * Cursor reads over entries of 1 byte to 3 MiB, mixed (the batches of a producer that batches more than the client's
 * default, next to small ones), with byte limits from 1 byte up: Pulsar's contract is that a read returns at least one
 * entry even when that entry alone exceeds the limit, that the entries returned are the next ones in order, and that
 * the read position moves only past the entries returned (and the ones acknowledged or skipped). Plain, "or wait",
 * with-skip and replay reads.
 */
public abstract class LargeEntryReadConformanceTest extends ManagedLedgerConformanceTest {

    /** Entry sizes: small ones between batches of 0.5 to 3 MiB, in objects fetched whole and by range. */
    private static final int[] SIZES = {
        1, 700_000, 40, 1_048_576, 2_000_000, 3, 1_500_000, 64 << 10, 900_000, 3_000_000, 10, 20, 30, 1_200_000,
        600_000, 5_000, 2_500_000, 1, 1, 800_000
    };

    private static final long[] BYTE_LIMITS = {1, 100, 64 << 10, 500_000, 1 << 20, 5 << 20};

    /** Entry {@code i}: its number, then a filler that differs per entry, so a wrong slice shows. */
    static byte[] entry(int i, int size) {
        byte[] b = new byte[size];
        byte[] head = ("e" + i + "|").getBytes(java.nio.charset.StandardCharsets.UTF_8);
        for (int k = 0; k < size; k++) {
            b[k] = k < head.length ? head[k] : (byte) (i * 31 + k);
        }
        return b;
    }

    /** Adds the entries at once (so the writer packs several into an object) and returns their positions. */
    private List<Position> addMixed(ManagedLedger ml, int rounds) throws Exception {
        List<CompletableFuture<Position>> adds = new ArrayList<>();
        for (int r = 0; r < rounds; r++) {
            for (int s = 0; s < SIZES.length; s++) {
                int i = adds.size();
                adds.add(addAsync(ml, entry(i, SIZES[i % SIZES.length])));
            }
        }
        List<Position> positions = new ArrayList<>();
        for (CompletableFuture<Position> a : adds) {
            positions.add(await(a));
        }
        return positions;
    }

    /** Checks the entry is entry {@code i} whole, at its position; releases it. */
    private static void checkEntry(Entry e, int i, List<Position> positions, String where) {
        try {
            assertPos(e.getPosition(), positions.get(i));
            byte[] want = entry(i, SIZES[i % SIZES.length]);
            assertThat(e.getLength()).as(where + ": length of entry " + i).isEqualTo(want.length);
            assertThat(e.getData()).as(where + ": bytes of entry " + i).isEqualTo(want);
        } finally {
            e.release();
        }
    }

    private static int indexOf(List<Position> positions, Position p) {
        for (int i = 0; i < positions.size(); i++) {
            if (norm(positions.get(i)).equals(norm(p))) {
                return i;
            }
        }
        return -1;
    }

    @Test
    void readsWithEveryByteLimitReturnEveryEntryInOrderAndMoveTheReadPositionOnlyPastThem() throws Exception {
        ManagedLedger ml = open();
        List<Position> positions = addMixed(ml, 2);
        for (long limit : BYTE_LIMITS) {
            for (int count : new int[] {1, 7, 100}) {
                String where = "maxSizeBytes " + limit + ", count " + count;
                ManagedCursor c = ml.openCursor("c-" + limit + "-" + count, InitialPosition.Earliest);
                int next = 0;
                while (next < positions.size()) {
                    CompletableFuture<List<Entry>> read = new CompletableFuture<>();
                    c.asyncReadEntries(count, limit, readCallback(read), null, PositionFactory.LATEST);
                    List<Entry> got = await(read);
                    if (got.isEmpty()) {
                        fail(where + ": a read at entry " + next + " of " + positions.size() + " returned nothing");
                    }
                    assertThat(got.size()).as(where + ": entries of one read").isLessThanOrEqualTo(count);
                    for (Entry e : got) {
                        checkEntry(e, next++, positions, where);
                    }
                    if (next < positions.size()) {
                        assertPos(c.getReadPosition(), positions.get(next));
                    }
                }
                assertThat(c.hasMoreEntries())
                        .as(where + ": more entries after the last")
                        .isFalse();
                ml.deleteCursor(c.getName());
            }
        }
    }

    @Test
    void aByteLimitBelowTheNextEntryStillReturnsThatEntry() throws Exception {
        ManagedLedger ml = open();
        List<Position> positions = addMixed(ml, 1);
        ManagedCursor c = ml.openCursor("below", InitialPosition.Earliest);
        for (int i = 0; i < positions.size(); i++) {
            CompletableFuture<List<Entry>> read = new CompletableFuture<>();
            // A limit of one byte: below every entry; each read returns exactly the next one.
            c.asyncReadEntriesOrWait(100, 1, readCallback(read), null, PositionFactory.LATEST);
            List<Entry> got = await(read);
            assertThat(got).as("a read of at most 1 byte at entry " + i).hasSize(1);
            checkEntry(got.get(0), i, positions, "1-byte reads");
        }
        assertThat(c.hasMoreEntries()).isFalse();
    }

    @Test
    void readsWithSkipReturnEveryOtherEntryAndSkipOnlyWhatTheConditionSkips() throws Exception {
        ManagedLedger ml = open();
        List<Position> positions = addMixed(ml, 2);
        Set<Position> skipped = new HashSet<>();
        for (int i = 0; i < positions.size(); i += 3) {
            skipped.add(norm(positions.get(i)));
        }
        Predicate<Position> skip = p -> skipped.contains(norm(p));
        for (long limit : new long[] {1, 500_000, 5 << 20}) {
            ManagedCursor c = ml.openCursor("skip-" + limit, InitialPosition.Earliest);
            List<Integer> delivered = new ArrayList<>();
            for (int reads = 0; c.hasMoreEntries() && reads < 1000; reads++) {
                CompletableFuture<List<Entry>> read = new CompletableFuture<>();
                c.asyncReadEntriesWithSkipOrWait(10, limit, readCallback(read), null, PositionFactory.LATEST, skip);
                for (Entry e : await(read)) {
                    int i = indexOf(positions, e.getPosition());
                    delivered.add(i);
                    checkEntry(e, i, positions, "with skip, maxSizeBytes " + limit);
                }
            }
            List<Integer> expected = new ArrayList<>();
            for (int i = 0; i < positions.size(); i++) {
                if (i % 3 != 0) {
                    expected.add(i);
                }
            }
            assertThat(delivered)
                    .as("entries delivered with skip, maxSizeBytes " + limit)
                    .isEqualTo(expected);
        }
    }

    @Test
    void entriesAcknowledgedOutOfOrderAreNotReadAgainAndTheOthersAre() throws Exception {
        ManagedLedger ml = open();
        List<Position> positions = addMixed(ml, 2);
        ManagedCursor c = ml.openCursor("acked", InitialPosition.Earliest);
        List<Position> acked = new ArrayList<>();
        for (int i = 1; i < positions.size(); i += 2) {
            acked.add(positions.get(i));
        }
        await(deleteAsync(c, acked));
        List<Integer> delivered = new ArrayList<>();
        for (int reads = 0; c.hasMoreEntries() && reads < 1000; reads++) {
            CompletableFuture<List<Entry>> read = new CompletableFuture<>();
            c.asyncReadEntries(5, 700_000, readCallback(read), null, PositionFactory.LATEST);
            for (Entry e : await(read)) {
                int i = indexOf(positions, e.getPosition());
                delivered.add(i);
                checkEntry(e, i, positions, "after out-of-order acks");
            }
        }
        List<Integer> expected = new ArrayList<>();
        for (int i = 0; i < positions.size(); i += 2) {
            expected.add(i);
        }
        assertThat(delivered).as("entries not acknowledged").isEqualTo(expected);
    }

    @Test
    void replayOfLargeEntriesReturnsEachWhole() throws Exception {
        ManagedLedger ml = open();
        List<Position> positions = addMixed(ml, 1);
        ManagedCursor c = ml.openCursor("replay", InitialPosition.Earliest);
        drain(c.readEntries(positions.size()));
        Set<Position> wanted = new HashSet<>();
        for (int i = 0; i < positions.size(); i += 2) {
            wanted.add(positions.get(i));
        }
        List<Entry> replayed = c.replayEntries(wanted);
        assertThat(replayed).hasSize(wanted.size());
        for (Entry e : replayed) {
            checkEntry(e, indexOf(positions, e.getPosition()), positions, "replay");
        }
    }

    @Test
    void aRewoundCursorReadsEverythingAgainWithSmallLimits() throws Exception {
        ManagedLedger ml = open();
        List<Position> positions = addMixed(ml, 1);
        ManagedCursor c = ml.openCursor("rewind", InitialPosition.Earliest);
        for (int pass = 0; pass < 2; pass++) {
            int next = 0;
            while (c.hasMoreEntries()) {
                CompletableFuture<List<Entry>> read = new CompletableFuture<>();
                c.asyncReadEntries(3, 64 << 10, readCallback(read), null, PositionFactory.LATEST);
                for (Entry e : await(read)) {
                    checkEntry(e, next++, positions, "pass " + pass);
                }
            }
            assertThat(next).as("entries read in pass " + pass).isEqualTo(positions.size());
            c.rewind();
        }
    }
}
