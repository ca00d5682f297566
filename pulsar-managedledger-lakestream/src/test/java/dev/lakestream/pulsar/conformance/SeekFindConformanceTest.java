package dev.lakestream.pulsar.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.bookkeeper.mledger.AsyncCallbacks;
import org.apache.bookkeeper.mledger.Entry;
import org.apache.bookkeeper.mledger.ManagedCursor;
import org.apache.bookkeeper.mledger.ManagedCursor.FindPositionConstraint;
import org.apache.bookkeeper.mledger.ManagedCursor.IndividualDeletedEntries;
import org.apache.bookkeeper.mledger.ManagedLedger;
import org.apache.bookkeeper.mledger.ManagedLedgerException;
import org.apache.bookkeeper.mledger.Position;
import org.apache.bookkeeper.mledger.PositionFactory;
import org.apache.pulsar.common.api.proto.CommandSubscribe.InitialPosition;
import org.junit.jupiter.api.Test;

/** Moving cursors: reset, seek, rewind, clear backlog, skip; finding entries: find-newest, n-th, dispatchable. */
public abstract class SeekFindConformanceTest extends ManagedLedgerConformanceTest {

    @Test
    void resetCursorMovesReadAndMarkDeleteAndForgetsHoles() throws Exception {
        ManagedLedger ml = open(config().setMaxEntriesPerLedger(4));
        ManagedCursor c = ml.openCursor("c", InitialPosition.Earliest);
        List<Position> ps = addEntries(ml, "e", 10);
        assertThat(readAll(c)).hasSize(10);
        c.markDelete(ps.get(6));
        c.delete(ps.get(8));

        c.resetCursor(ps.get(3));
        assertPos(c.getReadPosition(), ps.get(3));
        assertMarkDelete(c, ps.get(2));
        assertThat(c.isMessageDeleted(ps.get(8)))
                .as("holes are cleared by a reset")
                .isFalse();
        assertThat(c.getNumberOfEntriesInBacklog(true)).isEqualTo(7);
        assertThat(c.getNumberOfEntriesInBacklog(false)).isEqualTo(7);
        assertThat(texts(readAll(c))).isEqualTo(names("e", 3, 10));
    }

    @Test
    void resetCursorToLatestAndEarliestMeansAfterTheLastEntryAndTheFirst() throws Exception {
        // pulsar-admin topics create-subscription (default --messageId latest) resets the new cursor to
        // PositionFactory.LATEST; it was refused as "not within the ledger".
        ManagedLedger ml = open(config().setMaxEntriesPerLedger(4));
        ManagedCursor c = ml.openCursor("c", InitialPosition.Earliest);
        List<Position> ps = addEntries(ml, "e", 10);

        c.resetCursor(PositionFactory.LATEST);
        assertMarkDelete(c, ps.get(9));
        assertThat(c.getNumberOfEntriesInBacklog(false)).isZero();
        addEntries(ml, "f", 1);
        assertThat(texts(readAll(c))).containsExactly("f-0");

        c.resetCursor(PositionFactory.EARLIEST);
        assertPos(c.getReadPosition(), ps.get(0));
        assertThat(c.getNumberOfEntriesInBacklog(false)).isEqualTo(11);
        assertThat(texts(readAll(c))).startsWith("e-0").endsWith("e-9", "f-0").hasSize(11);
    }

    @Test
    void resetCursorForwardAcksWhatItPasses() throws Exception {
        ManagedLedger ml = open();
        ManagedCursor c = ml.openCursor("c", InitialPosition.Earliest);
        List<Position> ps = addEntries(ml, "e", 10);

        CompletableFuture<Void> done = new CompletableFuture<>();
        c.asyncResetCursor(ps.get(7), false, new AsyncCallbacks.ResetCursorCallback() {
            @Override
            public void resetComplete(Object ctx) {
                done.complete(null);
            }

            @Override
            public void resetFailed(ManagedLedgerException exception, Object ctx) {
                done.completeExceptionally(exception);
            }
        });
        await(done);
        assertPos(c.getReadPosition(), ps.get(7));
        assertMarkDelete(c, ps.get(6));
        assertThat(c.getNumberOfEntriesInBacklog(true)).isEqualTo(3);
        assertThat(c.getNumberOfEntriesInBacklog(false)).isEqualTo(3);
        assertThat(texts(readAll(c))).isEqualTo(names("e", 7, 10));
    }

    @Test
    void seekMovesOnlyTheReadPosition() throws Exception {
        ManagedLedger ml = open(config().setMaxEntriesPerLedger(3));
        ManagedCursor c = ml.openCursor("c", InitialPosition.Earliest);
        Position md = c.getMarkDeletedPosition();
        List<Position> ps = addEntries(ml, "e", 8);

        c.seek(ps.get(5));
        assertPos(c.getReadPosition(), ps.get(5));
        assertMarkDelete(c, md);
        assertThat(c.getNumberOfEntries()).isEqualTo(3);
        assertThat(c.getNumberOfEntriesInBacklog(true)).isEqualTo(8);
        assertThat(texts(readAll(c))).isEqualTo(names("e", 5, 8));

        c.seek(ps.get(1));
        assertThat(texts(readAll(c))).isEqualTo(names("e", 1, 8));
    }

    @Test
    void seekBeforeTheMarkDeleteIsClampedUnlessForced() throws Exception {
        ManagedLedger ml = open();
        ManagedCursor c = ml.openCursor("c", InitialPosition.Earliest);
        List<Position> ps = addEntries(ml, "e", 8);
        c.markDelete(ps.get(4));

        c.seek(ps.get(1));
        assertPos(c.getReadPosition(), ps.get(5));
        c.seek(ps.get(1), true);
        assertPos(c.getReadPosition(), ps.get(1));
        assertMarkDelete(c, ps.get(4));
    }

    @Test
    void rewindGoesBackToTheEntryAfterTheMarkDelete() throws Exception {
        ManagedLedger ml = open(config().setMaxEntriesPerLedger(3));
        ManagedCursor c = ml.openCursor("c", InitialPosition.Earliest);
        List<Position> ps = addEntries(ml, "e", 8);
        assertThat(readAll(c)).hasSize(8);
        c.markDelete(ps.get(2));
        c.delete(ps.get(5));

        c.rewind();
        assertPos(c.getReadPosition(), ps.get(3));
        assertThat(c.getNumberOfEntries()).isEqualTo(4);
        assertThat(texts(readAll(c))).containsExactly("e-3", "e-4", "e-6", "e-7");
    }

    @Test
    void clearBacklogAcksEverything() throws Exception {
        ManagedLedger ml = open(config().setMaxEntriesPerLedger(3));
        ManagedCursor c1 = ml.openCursor("c1", InitialPosition.Earliest);
        ManagedCursor c2 = ml.openCursor("c2", InitialPosition.Earliest);
        List<Position> ps = addEntries(ml, "e", 7);

        c1.clearBacklog();
        assertMarkDelete(c1, ps.get(6));
        assertThat(c1.getNumberOfEntriesInBacklog(true)).isZero();
        assertThat(c1.getNumberOfEntriesInBacklog(false)).isZero();
        assertThat(c1.hasMoreEntries()).isFalse();
        assertThat(c1.isMessageDeleted(ps.get(6))).isTrue();

        CompletableFuture<Void> cleared = new CompletableFuture<>();
        c2.asyncClearBacklog(
                new AsyncCallbacks.ClearBacklogCallback() {
                    @Override
                    public void clearBacklogComplete(Object ctx) {
                        cleared.complete(null);
                    }

                    @Override
                    public void clearBacklogFailed(ManagedLedgerException exception, Object ctx) {
                        cleared.completeExceptionally(exception);
                    }
                },
                null);
        await(cleared);
        assertThat(c2.getNumberOfEntriesInBacklog(true)).isZero();

        ml.addEntry(bytes("after"));
        assertThat(texts(readAll(c1))).containsExactly("after");
    }

    @Test
    void skipEntriesCountsOrJumpsOverDeletedEntries() throws Exception {
        ManagedLedger ml = open();
        ManagedCursor exclude = ml.openCursor("exclude", InitialPosition.Earliest);
        ManagedCursor include = ml.openCursor("include", InitialPosition.Earliest);
        List<Position> ps = addEntries(ml, "e", 10);
        for (ManagedCursor c : List.of(exclude, include)) {
            c.delete(ps.get(2));
            c.delete(ps.get(3));
        }

        // Exclude: skip 3 live entries (e-0, e-1, e-4); the deleted e-2, e-3 do not count.
        exclude.skipEntries(3, IndividualDeletedEntries.Exclude);
        assertMarkDelete(exclude, ps.get(4));
        assertThat(exclude.getNumberOfEntriesInBacklog(true)).isEqualTo(5);
        assertThat(texts(drain(exclude.readEntries(1)))).containsExactly("e-5");

        // Include: skip 3 entries counting the deleted ones (e-0, e-1, e-2), then e-3 is already deleted too.
        include.skipEntries(3, IndividualDeletedEntries.Include);
        assertMarkDelete(include, ps.get(3));
        assertThat(include.getNumberOfEntriesInBacklog(true)).isEqualTo(6);
    }

    private static boolean expired(Entry e) {
        return startsWith(e, "expired");
    }

    @Test
    void findNewestMatchingFindsTheLastEntryOfAMatchingPrefix() throws Exception {
        ManagedLedger ml = open(config().setMaxEntriesPerLedger(3));
        ManagedCursor c = ml.openCursor("c", InitialPosition.Earliest);
        List<Position> expiredPs = addEntries(ml, "expired", 7);
        addEntries(ml, "fresh", 5);

        assertPos(c.findNewestMatching(SeekFindConformanceTest::expired), expiredPs.get(6));
        assertPos(
                await(findNewestAsync(
                        c, FindPositionConstraint.SearchAllAvailableEntries, SeekFindConformanceTest::expired)),
                expiredPs.get(6));
        assertThat(c.findNewestMatching(e -> startsWith(e, "nothing"))).isNull();
        assertPos(c.findNewestMatching(e -> true), ml.getLastConfirmedEntry());
    }

    /**
     * As in Pulsar, the predicate of a find owns the entry it is given and releases it (the broker's message finder
     * and expiry monitor do, in a finally block); the managed ledger must not release it again.
     */
    @Test
    void findNewestMatchingLeavesTheEntryToThePredicate() throws Exception {
        ManagedLedger ml = open(config().setMaxEntriesPerLedger(3));
        ManagedCursor c = ml.openCursor("c", InitialPosition.Earliest);
        List<Position> expiredPs = addEntries(ml, "expired", 5);
        List<Position> freshPs = addEntries(ml, "fresh", 4);
        java.util.function.Predicate<Entry> releasing = e -> {
            try {
                return expired(e);
            } finally {
                e.release();
            }
        };
        assertPos(
                await(findNewestAsync(c, FindPositionConstraint.SearchAllAvailableEntries, releasing)),
                expiredPs.get(4));
        assertPos(c.findNewestMatching(releasing), expiredPs.get(4));
        // asyncFindPosition answers the position after the newest match.
        assertPos(await(ml.asyncFindPosition(releasing)), freshPs.get(0));
        // The entries are intact for readers afterwards.
        assertThat(texts(readAll(c))).hasSize(9).startsWith("expired-0");
    }

    @Test
    void findNewestMatchingOnActiveEntriesStartsAfterTheMarkDelete() throws Exception {
        ManagedLedger ml = open(config().setMaxEntriesPerLedger(3));
        ManagedCursor c = ml.openCursor("c", InitialPosition.Earliest);
        List<Position> expiredPs = addEntries(ml, "expired", 4);
        List<Position> freshPs = addEntries(ml, "fresh", 4);
        c.markDelete(freshPs.get(0));

        assertThat(await(findNewestAsync(
                        c, FindPositionConstraint.SearchActiveEntries, SeekFindConformanceTest::expired)))
                .as("no active entry matches")
                .isNull();
        assertPos(
                await(findNewestAsync(
                        c, FindPositionConstraint.SearchAllAvailableEntries, SeekFindConformanceTest::expired)),
                expiredPs.get(3));
        assertPos(
                await(findNewestAsync(c, FindPositionConstraint.SearchActiveEntries, e -> !text(e).equals("fresh-3"))),
                freshPs.get(2));
    }

    @Test
    void nthEntryCountsFromTheMarkDelete() throws Exception {
        ManagedLedger ml = open(config().setMaxEntriesPerLedger(3));
        ManagedCursor c = ml.openCursor("c", InitialPosition.Earliest);
        List<Position> ps = addEntries(ml, "e", 8);
        c.markDelete(ps.get(0));
        c.delete(ps.get(2));

        Entry first = c.getNthEntry(1, IndividualDeletedEntries.Include);
        try {
            assertThat(text(first)).isEqualTo("e-1");
        } finally {
            first.release();
        }
        Entry second = c.getNthEntry(2, IndividualDeletedEntries.Exclude);
        try {
            assertThat(text(second)).as("the deleted e-2 is not counted").isEqualTo("e-3");
        } finally {
            second.release();
        }
        Entry fifth = c.getNthEntry(5, IndividualDeletedEntries.Include);
        try {
            assertThat(text(fifth)).isEqualTo("e-5");
        } finally {
            fifth.release();
        }
        assertThat(c.getNthEntry(50, IndividualDeletedEntries.Include))
                .as("past the end")
                .isNull();
        assertPos(c.getReadPosition(), ps.get(1));
    }

    private static boolean dispatchable(Entry e) {
        return !startsWith(e, "marker");
    }

    @Test
    void lastDispatchablePositionSkipsTrailingNonDispatchableEntries() throws Exception {
        ManagedLedger ml = open(config().setMaxEntriesPerLedger(2));
        List<Position> data = addEntries(ml, "data", 3);
        addEntries(ml, "marker", 3);

        Position last = await(
                ml.getLastDispatchablePosition(SeekFindConformanceTest::dispatchable, ml.getLastConfirmedEntry()));
        assertPos(last, data.get(2));

        Position fromMiddle = await(ml.getLastDispatchablePosition(SeekFindConformanceTest::dispatchable, data.get(1)));
        assertPos(fromMiddle, data.get(1));

        Position none = await(ml.getLastDispatchablePosition(e -> false, ml.getLastConfirmedEntry()));
        assertThat(none).isNotNull();
        assertThat(none.compareTo(data.get(0)))
                .as("nothing dispatchable: a position before the first entry")
                .isNegative();
    }

    /** {@code scan} (what {@code analyze-backlog} uses) visits the unacknowledged entries in order and stops as told. */
    @Test
    void scanVisitsTheBacklogAndStopsAsTold() throws Exception {
        ManagedLedger ml = open(config().setMaxEntriesPerLedger(4));
        ManagedCursor c = ml.openCursor("c", InitialPosition.Earliest);
        List<Position> ps = addEntries(ml, "e", 10);
        c.markDelete(ps.get(1));
        c.delete(ps.get(4));

        List<String> seen = new java.util.ArrayList<>();
        assertThat(await(c.scan(java.util.Optional.empty(), e -> seen.add(text(e)), 3, 100, 30_000)))
                .isEqualTo(org.apache.bookkeeper.mledger.ScanOutcome.COMPLETED);
        assertThat(seen).containsExactly("e-2", "e-3", "e-5", "e-6", "e-7", "e-8", "e-9");

        seen.clear();
        assertThat(await(c.scan(
                        java.util.Optional.empty(), e -> seen.add(text(e)) && !text(e).equals("e-6"), 3, 100, 30_000)))
                .isEqualTo(org.apache.bookkeeper.mledger.ScanOutcome.USER_INTERRUPTED);
        assertThat(seen).containsExactly("e-2", "e-3", "e-5", "e-6");

        seen.clear();
        assertThat(await(c.scan(java.util.Optional.empty(), e -> seen.add(text(e)), 3, 2, 30_000)))
                .isEqualTo(org.apache.bookkeeper.mledger.ScanOutcome.ABORTED);
        assertThat(seen).containsExactly("e-2", "e-3");

        seen.clear();
        assertThat(await(c.scan(java.util.Optional.of(ps.get(7)), e -> seen.add(text(e)), 10, 100, 30_000)))
                .isEqualTo(org.apache.bookkeeper.mledger.ScanOutcome.COMPLETED);
        assertThat(seen).containsExactly("e-7", "e-8", "e-9");
        // The scan released what it read, once: the entries still read normally.
        assertThat(texts(readAll(c))).containsExactly("e-2", "e-3", "e-5", "e-6", "e-7", "e-8", "e-9");
    }
}
