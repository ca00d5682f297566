package dev.lakestream.pulsar.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.bookkeeper.mledger.AsyncCallbacks;
import org.apache.bookkeeper.mledger.ManagedCursor;
import org.apache.bookkeeper.mledger.ManagedLedger;
import org.apache.bookkeeper.mledger.ManagedLedgerException;
import org.apache.bookkeeper.mledger.Position;
import org.apache.bookkeeper.mledger.PositionFactory;
import org.apache.pulsar.common.api.proto.CommandSubscribe.InitialPosition;
import org.junit.jupiter.api.Test;

/** Cursors: initial positions, reading, counters, the cursor list, properties, non-durable cursors. */
public abstract class CursorConformanceTest extends ManagedLedgerConformanceTest {

    private static List<String> cursorNames(ManagedLedger ml) {
        List<String> out = new ArrayList<>();
        for (ManagedCursor c : ml.getCursors()) {
            out.add(c.getName());
        }
        return out;
    }

    @Test
    void latestCursorStartsAfterTheExistingEntries() throws Exception {
        ManagedLedger ml = open();
        List<Position> old = addEntries(ml, "old", 3);

        ManagedCursor c = ml.openCursor("c"); // default initial position: Latest
        assertMarkDelete(c, old.get(2));
        assertThat(c.getReadPosition().compareTo(old.get(2))).isPositive();
        assertThat(c.getNumberOfEntries()).isZero();
        assertThat(c.getNumberOfEntriesInBacklog(true)).isZero();
        assertThat(c.getNumberOfEntriesInBacklog(false)).isZero();
        assertThat(c.hasMoreEntries()).isFalse();

        addEntries(ml, "new", 2);
        assertThat(c.hasMoreEntries()).isTrue();
        assertThat(c.getNumberOfEntries()).isEqualTo(2);
        assertThat(texts(readAll(c))).containsExactly("new-0", "new-1");
    }

    @Test
    void earliestCursorReadsEverything() throws Exception {
        ManagedLedger ml = open();
        List<Position> ps = addEntries(ml, "e", 3);

        ManagedCursor c = ml.openCursor("c", InitialPosition.Earliest);
        assertPos(c.getReadPosition(), ps.get(0));
        assertThat(c.getMarkDeletedPosition().compareTo(ps.get(0))).isNegative();
        assertThat(c.getNumberOfEntries()).isEqualTo(3);
        assertThat(c.getNumberOfEntriesInBacklog(true)).isEqualTo(3);
        assertThat(c.getNumberOfEntriesInBacklog(false)).isEqualTo(3);
        assertThat(c.hasMoreEntries()).isTrue();

        List<Read> reads = drain(c.readEntries(10));
        assertThat(texts(reads)).containsExactly("e-0", "e-1", "e-2");
        assertThat(positionsOf(reads)).isEqualTo(norm(ps));
        assertThat(c.hasMoreEntries()).isFalse();
        assertThat(c.readEntries(10)).isEmpty();
    }

    @Test
    void cursorOnAnEmptyLedgerSeesLaterEntries() throws Exception {
        ManagedLedger ml = open();
        ManagedCursor latest = ml.openCursor("latest");
        ManagedCursor earliest = ml.openCursor("earliest", InitialPosition.Earliest);
        assertThat(latest.readEntries(10)).isEmpty();
        assertThat(earliest.readEntries(10)).isEmpty();

        ml.addEntry(bytes("x"));
        assertThat(texts(drain(latest.readEntries(10)))).containsExactly("x");
        assertThat(texts(drain(earliest.readEntries(10)))).containsExactly("x");
        assertThat(latest.readEntries(10)).isEmpty();
    }

    @Test
    void readingMovesTheReadPositionButNotTheMarkDelete() throws Exception {
        ManagedLedger ml = open();
        ManagedCursor c = ml.openCursor("c");
        Position md = c.getMarkDeletedPosition();
        List<Position> ps = addEntries(ml, "e", 5);

        List<Read> first = drain(c.readEntries(2));
        assertThat(texts(first)).containsExactly("e-0", "e-1");
        assertPos(c.getReadPosition(), ps.get(2));
        assertMarkDelete(c, md);
        assertThat(c.getNumberOfEntries()).as("entries left to read").isEqualTo(3);
        assertThat(c.getNumberOfEntriesInBacklog(true))
                .as("backlog counts unacked entries")
                .isEqualTo(5);
        assertThat(c.getNumberOfEntriesInBacklog(false)).isEqualTo(5);
        assertThat(c.getNumberOfEntriesSinceFirstNotAckedMessage()).isGreaterThanOrEqualTo(2);
    }

    @Test
    void cursorsOpenedAtDifferentTimesCountDifferentEntries() throws Exception {
        ManagedLedger ml = open(config().setMaxEntriesPerLedger(2));
        List<ManagedCursor> cursors = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            cursors.add(ml.openCursor("c" + i));
            ml.addEntry(bytes("e-" + i));
        }
        ManagedCursor last = ml.openCursor("c4");

        for (int i = 0; i < 4; i++) {
            assertThat(cursors.get(i).getNumberOfEntries()).as("cursor c%s", i).isEqualTo(4 - i);
            assertThat(cursors.get(i).getNumberOfEntriesInBacklog(false)).isEqualTo(4 - i);
            assertThat(cursors.get(i).hasMoreEntries()).isTrue();
        }
        assertThat(last.getNumberOfEntries()).isZero();
        assertThat(last.hasMoreEntries()).isFalse();
        assertThat(texts(readAll(cursors.get(1)))).containsExactly("e-1", "e-2", "e-3");
    }

    @Test
    void getCursorsListsOpenCursorsAndDeleteRemovesThem() throws Exception {
        ManagedLedger ml = open();
        ManagedCursor c1 = ml.openCursor("c1");
        ml.openCursor("c2");
        assertThat(cursorNames(ml)).containsExactlyInAnyOrder("c1", "c2");
        assertThat(ml.openCursor("c1")).as("opening an open cursor returns it").isSameAs(c1);

        ml.deleteCursor("c1");
        assertThat(cursorNames(ml)).containsExactly("c2");

        CompletableFuture<Void> deleted = new CompletableFuture<>();
        ml.asyncDeleteCursor(
                "c2",
                new AsyncCallbacks.DeleteCursorCallback() {
                    @Override
                    public void deleteCursorComplete(Object ctx) {
                        deleted.complete(null);
                    }

                    @Override
                    public void deleteCursorFailed(ManagedLedgerException exception, Object ctx) {
                        deleted.completeExceptionally(exception);
                    }
                },
                null);
        await(deleted);
        assertThat(cursorNames(ml)).isEmpty();
    }

    @Test
    void reopeningADeletedCursorStartsAfresh() throws Exception {
        ManagedLedger ml = open();
        ManagedCursor c = ml.openCursor("c", InitialPosition.Earliest);
        addEntries(ml, "e", 3);
        assertThat(c.getNumberOfEntriesInBacklog(true)).isEqualTo(3);
        ml.deleteCursor("c");

        ManagedCursor again = ml.openCursor("c"); // Latest
        assertThat(again).isNotSameAs(c);
        assertMarkDelete(again, ml.getLastConfirmedEntry());
        assertThat(again.getNumberOfEntriesInBacklog(true)).isZero();
    }

    @Test
    void cursorIdentity() throws Exception {
        ManagedLedger ml = open();
        ManagedCursor c = ml.openCursor("sub-1");
        assertThat(c.getName()).isEqualTo("sub-1");
        assertThat(c.isDurable()).isTrue();
        assertThat(c.isClosed()).isFalse();
        assertThat(c.getManagedLedger()).isSameAs(ml);
    }

    @Test
    void cursorPropertiesFromOpenAndUpdates() throws Exception {
        ManagedLedger ml = open();
        List<Position> ps = addEntries(ml, "e", 3);
        ManagedCursor c = ml.openCursor("c", InitialPosition.Earliest, Map.of("a", 1L), Map.of("k", "v"));
        assertThat(c.getProperties()).isEqualTo(Map.of("a", 1L));
        assertThat(c.getCursorProperties()).isEqualTo(Map.of("k", "v"));

        await(c.putCursorProperty("k2", "v2"));
        assertThat(c.getCursorProperties()).isEqualTo(Map.of("k", "v", "k2", "v2"));
        await(c.removeCursorProperty("k"));
        assertThat(c.getCursorProperties()).isEqualTo(Map.of("k2", "v2"));
        await(c.setCursorProperties(Map.of("only", "this")));
        assertThat(c.getCursorProperties()).isEqualTo(Map.of("only", "this"));

        c.markDelete(ps.get(0), Map.of("seq", 42L));
        assertThat(c.getProperties()).isEqualTo(Map.of("seq", 42L));
    }

    @Test
    void slowestConsumerIsTheCursorFurthestBehind() throws Exception {
        ManagedLedger ml = open();
        ManagedCursor c1 = ml.openCursor("c1", InitialPosition.Earliest);
        ManagedCursor c2 = ml.openCursor("c2", InitialPosition.Earliest);
        List<Position> ps = addEntries(ml, "e", 5);

        c2.markDelete(ps.get(3));
        assertThat(ml.getSlowestConsumer().getName()).isEqualTo("c1");
        c1.markDelete(ps.get(4));
        assertThat(ml.getSlowestConsumer().getName()).isEqualTo("c2");
    }

    @Test
    void closedCursorRejectsReadsAndAcks() throws Exception {
        ManagedLedger ml = open();
        ManagedCursor c = ml.openCursor("c", InitialPosition.Earliest);
        List<Position> ps = addEntries(ml, "e", 2);
        c.close();
        assertThat(c.isClosed()).isTrue();
        assertThatThrownBy(() -> c.readEntries(1))
                .isInstanceOf(ManagedLedgerException.CursorAlreadyClosedException.class);
        assertThatThrownBy(() -> c.markDelete(ps.get(0)))
                .isInstanceOf(ManagedLedgerException.CursorAlreadyClosedException.class);
    }

    // ------------------------------------------------------------------ non-durable cursors

    @Test
    void nonDurableCursorFromEarliestReadsEverything() throws Exception {
        ManagedLedger ml = open(config().setMaxEntriesPerLedger(2));
        List<Position> ps = addEntries(ml, "e", 5);
        ManagedCursor c = ml.newNonDurableCursor(PositionFactory.EARLIEST);
        assertThat(c.isDurable()).isFalse();
        assertThat(c.getNumberOfEntries()).isEqualTo(5);
        List<Read> reads = readAll(c);
        assertThat(positionsOf(reads)).isEqualTo(norm(ps));
    }

    @Test
    void nonDurableCursorFromAPositionReadsAfterIt() throws Exception {
        ManagedLedger ml = open(config().setMaxEntriesPerLedger(2));
        List<Position> ps = addEntries(ml, "e", 5);
        ManagedCursor c = ml.newNonDurableCursor(ps.get(1), "reader-1");
        assertThat(c.getName()).isEqualTo("reader-1");
        assertMarkDelete(c, ps.get(1));
        assertPos(c.getReadPosition(), ps.get(2));
        assertThat(texts(readAll(c))).containsExactly("e-2", "e-3", "e-4");
    }

    @Test
    void nonDurableCursorFromLatestSeesOnlyNewEntries() throws Exception {
        ManagedLedger ml = open();
        addEntries(ml, "old", 3);
        ManagedCursor c = ml.newNonDurableCursor(PositionFactory.LATEST);
        assertThat(c.readEntries(10)).isEmpty();
        addEntries(ml, "new", 2);
        assertThat(texts(readAll(c))).containsExactly("new-0", "new-1");
    }

    @Test
    void nonDurableCursorPastTheEndHonoursTheInitialPosition() throws Exception {
        ManagedLedger ml = open();
        addEntries(ml, "e", 3);
        ManagedCursor earliest =
                ml.newNonDurableCursor(PositionFactory.LATEST, "nd-earliest", InitialPosition.Earliest, false);
        ManagedCursor latest =
                ml.newNonDurableCursor(PositionFactory.LATEST, "nd-latest", InitialPosition.Latest, false);
        assertThat(texts(readAll(earliest))).containsExactly("e-0", "e-1", "e-2");
        assertThat(latest.readEntries(10)).isEmpty();
    }

    @Test
    void nonDurableCursorAcksWorkInMemory() throws Exception {
        ManagedLedger ml = open();
        List<Position> ps = addEntries(ml, "e", 4);
        ManagedCursor c = ml.newNonDurableCursor(PositionFactory.EARLIEST);
        c.delete(ps.get(1));
        assertThat(c.isMessageDeleted(ps.get(1))).isTrue();
        assertThat(c.getNumberOfEntriesInBacklog(true)).isEqualTo(3);
        c.markDelete(ps.get(2));
        assertMarkDelete(c, ps.get(2));
        assertThat(c.getNumberOfEntriesInBacklog(true)).isEqualTo(1);
        assertThat(texts(readAll(c))).containsExactly("e-3");
    }
}
