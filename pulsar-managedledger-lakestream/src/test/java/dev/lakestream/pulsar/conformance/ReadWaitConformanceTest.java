package dev.lakestream.pulsar.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.bookkeeper.mledger.AsyncCallbacks;
import org.apache.bookkeeper.mledger.Entry;
import org.apache.bookkeeper.mledger.ManagedCursor;
import org.apache.bookkeeper.mledger.ManagedLedger;
import org.apache.bookkeeper.mledger.ManagedLedgerException;
import org.apache.bookkeeper.mledger.Position;
import org.apache.bookkeeper.mledger.PositionFactory;
import org.apache.pulsar.common.api.proto.CommandSubscribe.InitialPosition;
import org.junit.jupiter.api.Test;

/** Reads that wait for entries, cancellation, replays, the skip predicate and maxPosition. */
public abstract class ReadWaitConformanceTest extends ManagedLedgerConformanceTest {

    @Test
    void readOrWaitParksUntilAnEntryIsAdded() throws Exception {
        ManagedLedger ml = open();
        ManagedCursor c = ml.openCursor("c");
        CompletableFuture<List<Entry>> read = readOrWaitAsync(c, 10);
        assertStaysPending(read);

        Position p = ml.addEntry(bytes("wake-up"));
        List<Read> reads = drain(await(read));
        assertThat(texts(reads)).containsExactly("wake-up");
        assertPos(reads.get(0).position(), p);
        assertThat(c.hasMoreEntries()).isFalse();
    }

    @Test
    void readOrWaitReturnsAtOnceWhenEntriesAreThere() throws Exception {
        ManagedLedger ml = open();
        ManagedCursor c = ml.openCursor("c", InitialPosition.Earliest);
        addEntries(ml, "e", 3);
        assertThat(texts(drain(await(readOrWaitAsync(c, 2))))).containsExactly("e-0", "e-1");
        assertThat(texts(drain(c.readEntriesOrWait(10)))).containsExactly("e-2");
    }

    @Test
    void parkedReadWakesUpForAnAddAfterARollover() throws Exception {
        ManagedLedger ml = open(config().setMaxEntriesPerLedger(2));
        ManagedCursor c = ml.openCursor("c", InitialPosition.Earliest);
        addEntries(ml, "e", 2); // fills the first ledger
        assertThat(texts(readAll(c))).containsExactly("e-0", "e-1");

        CompletableFuture<List<Entry>> read = readOrWaitAsync(c, 10);
        assertStaysPending(read);
        ml.addEntry(bytes("e-2"));
        assertThat(texts(drain(await(read)))).containsExactly("e-2");
    }

    @Test
    void aSecondWaitingReadOnTheSameCursorFails() throws Exception {
        ManagedLedger ml = open();
        ManagedCursor c = ml.openCursor("c");
        CompletableFuture<List<Entry>> first = readOrWaitAsync(c, 10);
        assertStaysPending(first);
        CompletableFuture<List<Entry>> second = readOrWaitAsync(c, 10);
        assertThatThrownBy(() -> await(second))
                .isInstanceOf(ManagedLedgerException.ConcurrentWaitCallbackException.class);

        ml.addEntry(bytes("x"));
        assertThat(texts(drain(await(first)))).containsExactly("x");
    }

    @Test
    void cancelPendingReadRequestDropsTheParkedRead() throws Exception {
        ManagedLedger ml = open();
        ManagedCursor c = ml.openCursor("c");
        assertThat(c.cancelPendingReadRequest()).as("nothing pending").isFalse();

        CompletableFuture<List<Entry>> read = readOrWaitAsync(c, 10);
        assertStaysPending(read);
        assertThat(c.cancelPendingReadRequest()).isTrue();

        Position p = ml.addEntry(bytes("after-cancel"));
        assertStaysPending(read);
        assertPos(c.getReadPosition(), p);
        assertThat(texts(drain(c.readEntries(10)))).containsExactly("after-cancel");

        // a new wait after a cancel works
        CompletableFuture<List<Entry>> again = readOrWaitAsync(c, 10);
        ml.addEntry(bytes("later"));
        assertThat(texts(drain(await(again)))).containsExactly("later");
    }

    @Test
    void readEntriesCompleteGetsAMutableList() throws Exception {
        ManagedLedger ml = open();
        ManagedCursor c = ml.openCursor("c", InitialPosition.Earliest);
        List<Position> ps = addEntries(ml, "e", 3);

        assertMutable(readAsync(c, 10, PositionFactory.LATEST));

        CompletableFuture<List<Entry>> parked = readOrWaitAsync(c, 10);
        ml.addEntry(bytes("woken"));
        assertMutable(parked);

        CompletableFuture<Set<? extends Position>> skipped = new CompletableFuture<>();
        assertMutable(replayAsync(c, new LinkedHashSet<>(List.of(ps.get(0), ps.get(1))), true, skipped));
    }

    private static void assertMutable(CompletableFuture<List<Entry>> read) throws Exception {
        List<Entry> entries = await(read);
        assertThat(entries).isNotEmpty();
        List<Entry> copy = List.copyOf(entries);
        try {
            // The Shared dispatcher removes and reorders entries in place.
            Entry first = entries.remove(0);
            entries.add(first);
            entries.removeIf(e -> false);
            entries.sort((a, b) -> b.getPosition().compareTo(a.getPosition()));
        } finally {
            copy.forEach(Entry::release);
        }
    }

    @Test
    void maxPositionCapsARead() throws Exception {
        ManagedLedger ml = open(config().setMaxEntriesPerLedger(2));
        ManagedCursor c = ml.openCursor("c", InitialPosition.Earliest);
        List<Position> ps = addEntries(ml, "e", 6);

        List<Read> capped = drain(await(readAsync(c, 10, ps.get(2))));
        assertThat(positionsOf(capped)).as("maxPosition is inclusive").isEqualTo(norm(ps.subList(0, 3)));
        assertPos(c.getReadPosition(), ps.get(3));
        assertThat(texts(drain(await(readAsync(c, 10, PositionFactory.LATEST)))))
                .containsExactly("e-3", "e-4", "e-5");
    }

    @Test
    void readsSkipIndividuallyDeletedEntries() throws Exception {
        ManagedLedger ml = open();
        ManagedCursor c = ml.openCursor("c", InitialPosition.Earliest);
        List<Position> ps = addEntries(ml, "e", 5);
        c.delete(ps.get(1));
        c.delete(ps.get(2));
        assertThat(texts(readAll(c))).containsExactly("e-0", "e-3", "e-4");
    }

    @Test
    void skipPredicateLeavesOutThePositionsItMatches() throws Exception {
        ManagedLedger ml = open();
        ManagedCursor c = ml.openCursor("c", InitialPosition.Earliest);
        List<Position> ps = addEntries(ml, "e", 6);
        Set<Position> skip = Set.of(norm(ps.get(1)), norm(ps.get(3)));

        List<Read> reads =
                drain(await(readWithSkipOrWaitAsync(c, 10, PositionFactory.LATEST, p -> skip.contains(norm(p)))));
        assertThat(texts(reads)).containsExactly("e-0", "e-2", "e-4", "e-5");
        assertThat(c.hasMoreEntries()).isFalse();
        assertThat(c.getNumberOfEntriesInBacklog(true))
                .as("skipping is not acknowledging")
                .isEqualTo(6);
    }

    @Test
    void skipPredicateWithMaxPosition() throws Exception {
        ManagedLedger ml = open();
        ManagedCursor c = ml.openCursor("c", InitialPosition.Earliest);
        List<Position> ps = addEntries(ml, "e", 6);
        Set<Position> skip = Set.of(norm(ps.get(1)));

        List<Read> reads = drain(await(readWithSkipOrWaitAsync(c, 10, ps.get(3), p -> skip.contains(norm(p)))));
        assertThat(texts(reads)).containsExactly("e-0", "e-2", "e-3");
        assertThat(texts(readAll(c))).containsExactly("e-4", "e-5");
    }

    @Test
    void readWithSkipOrWaitParksUntilAnEntryIsAdded() throws Exception {
        ManagedLedger ml = open();
        ManagedCursor c = ml.openCursor("c");
        CompletableFuture<List<Entry>> read = readWithSkipOrWaitAsync(c, 10, PositionFactory.LATEST, p -> false);
        assertStaysPending(read);
        ml.addEntry(bytes("x"));
        assertThat(texts(drain(await(read)))).containsExactly("x");
    }

    @Test
    void replayReadsTheGivenPositionsAndReportsAlreadyAckedOnes() throws Exception {
        ManagedLedger ml = open(config().setMaxEntriesPerLedger(2));
        ManagedCursor c = ml.openCursor("c", InitialPosition.Earliest);
        List<Position> ps = addEntries(ml, "e", 5);
        assertThat(readAll(c)).hasSize(5);

        CompletableFuture<Set<? extends Position>> skipped = new CompletableFuture<>();
        List<Read> replayed =
                drain(await(replayAsync(c, new LinkedHashSet<>(List.of(ps.get(3), ps.get(1))), true, skipped)));
        assertThat(texts(replayed)).as("sorted replay").containsExactly("e-1", "e-3");
        assertThat(await(skipped)).isEmpty();

        c.delete(ps.get(3));
        CompletableFuture<Set<? extends Position>> skipped2 = new CompletableFuture<>();
        List<Read> replayed2 =
                drain(await(replayAsync(c, new LinkedHashSet<>(List.of(ps.get(1), ps.get(3))), false, skipped2)));
        assertThat(texts(replayed2)).containsExactly("e-1");
        assertThat(norm(await(skipped2))).containsExactly(norm(ps.get(3)));

        List<Read> sync = drain(c.replayEntries(Set.of(ps.get(4))));
        assertThat(texts(sync)).containsExactly("e-4");
    }

    @Test
    void readEntriesHonoursTheCount() throws Exception {
        ManagedLedger ml = open(config().setMaxEntriesPerLedger(3));
        ManagedCursor c = ml.openCursor("c", InitialPosition.Earliest);
        addEntries(ml, "e", 7);
        assertThat(texts(drain(c.readEntries(2)))).containsExactly("e-0", "e-1");
        assertThat(texts(drain(c.readEntries(4)))).containsExactly("e-2", "e-3", "e-4", "e-5");
        assertThat(texts(drain(c.readEntries(4)))).containsExactly("e-6");
    }

    @Test
    void asyncReadEntriesPassesTheContext() throws Exception {
        ManagedLedger ml = open();
        ManagedCursor c = ml.openCursor("c", InitialPosition.Earliest);
        addEntries(ml, "e", 1);
        Object ctx = new Object();
        CompletableFuture<Object> seen = new CompletableFuture<>();
        c.asyncReadEntries(
                1,
                new AsyncCallbacks.ReadEntriesCallback() {
                    @Override
                    public void readEntriesComplete(List<Entry> entries, Object c2) {
                        entries.forEach(Entry::release);
                        seen.complete(c2);
                    }

                    @Override
                    public void readEntriesFailed(ManagedLedgerException exception, Object c2) {
                        seen.completeExceptionally(exception);
                    }
                },
                ctx,
                PositionFactory.LATEST);
        assertThat(await(seen)).isSameAs(ctx);
    }
}
