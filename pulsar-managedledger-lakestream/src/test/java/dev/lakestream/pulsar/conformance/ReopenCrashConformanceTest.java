package dev.lakestream.pulsar.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.bookkeeper.mledger.ManagedCursor;
import org.apache.bookkeeper.mledger.ManagedLedger;
import org.apache.bookkeeper.mledger.ManagedLedgerConfig;
import org.apache.bookkeeper.mledger.Position;
import org.apache.bookkeeper.mledger.PositionFactory;
import org.apache.bookkeeper.mledger.impl.AckSetStateUtil;
import org.apache.pulsar.common.api.proto.CommandSubscribe.InitialPosition;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** Close and reopen, full restarts and crashes: what comes back, exactly or within bounds. */
public abstract class ReopenCrashConformanceTest extends ManagedLedgerConformanceTest {

    private static List<String> cursorNames(ManagedLedger ml) {
        List<String> out = new ArrayList<>();
        for (ManagedCursor c : ml.getCursors()) {
            out.add(c.getName());
        }
        return out;
    }

    private static ManagedCursor cursor(ManagedLedger ml, String cursorName) {
        for (ManagedCursor c : ml.getCursors()) {
            if (c.getName().equals(cursorName)) {
                return c;
            }
        }
        throw new AssertionError("cursor " + cursorName + " not recovered; cursors: " + cursorNames(ml));
    }

    private static long[] unacked(int size, int... acked) {
        BitSet bits = new BitSet(size);
        bits.set(0, size);
        for (int i : acked) {
            bits.clear(i);
        }
        return bits.toLongArray();
    }

    @Test
    void closeAndReopenTheLedgerRestoresEntriesAndCursor() throws Exception {
        ManagedLedger ml = open();
        ManagedCursor c = ml.openCursor("c", InitialPosition.Earliest);
        List<Position> ps = addEntries(ml, "e", 5);
        assertThat(readAll(c)).hasSize(5);
        c.markDelete(ps.get(1));
        c.delete(ps.get(3));
        ml.close();

        ManagedLedger again = open();
        assertPos(again.getLastConfirmedEntry(), ps.get(4));
        assertThat(again.getNumberOfEntries()).isEqualTo(5);
        assertThat(cursorNames(again)).containsExactly("c");
        ManagedCursor rc = again.openCursor("c");
        assertThat(rc).isSameAs(cursor(again, "c"));
        assertMarkDelete(rc, ps.get(1));
        assertThat(rc.isMessageDeleted(ps.get(3))).isTrue();
        assertThat(rc.isMessageDeleted(ps.get(2))).isFalse();
        assertThat(rc.getNumberOfEntriesInBacklog(true)).isEqualTo(2);
        // Entries read but not acknowledged before the close are delivered again.
        assertPos(rc.getReadPosition(), ps.get(2));
        assertThat(texts(readAll(rc))).containsExactly("e-2", "e-4");
    }

    @Test
    void restartRestoresEntriesCursorsAcksAndProperties() throws Exception {
        ManagedLedgerConfig cfg = config().setMaxEntriesPerLedger(3);
        cfg.setDeletionAtBatchIndexLevelEnabled(true);
        ManagedLedger ml = open(cfg);
        ManagedCursor c1 = ml.openCursor("c1", InitialPosition.Earliest, Map.of("init", 1L), Map.of("sub", "props"));
        ManagedCursor c2 = ml.openCursor("c2", InitialPosition.Earliest);
        ml.openCursor("gone");
        ml.newNonDurableCursor(PositionFactory.EARLIEST, "reader");
        List<Position> ps = addEntries(ml, "e", 10);

        c1.markDelete(ps.get(2), Map.of("seq", 2L));
        c1.delete(ps.get(4));
        c1.delete(ps.get(7));
        Position p5 = ps.get(5);
        c1.delete(AckSetStateUtil.createPositionWithAckSet(p5.getLedgerId(), p5.getEntryId(), unacked(8, 0, 1)));
        await(c1.putCursorProperty("k", "v"));
        c2.markDelete(ps.get(8));
        ml.deleteCursor("gone");
        ml.setProperty("p", "q");
        Position last = ml.getLastConfirmedEntry();

        restart();
        ManagedLedger again = open(cfg);
        assertPos(again.getLastConfirmedEntry(), last);
        assertThat(again.getNumberOfEntries()).isEqualTo(10);
        assertThat(again.getProperties()).containsEntry("p", "q");
        assertThat(cursorNames(again))
                .as("durable cursors only, the deleted one stays deleted")
                .containsExactlyInAnyOrder("c1", "c2");

        ManagedCursor r1 = cursor(again, "c1");
        assertThat(r1.isDurable()).isTrue();
        assertMarkDelete(r1, ps.get(2));
        for (int i : new int[] {0, 1, 2, 4, 7}) {
            assertThat(r1.isMessageDeleted(ps.get(i))).as("e-%s acked", i).isTrue();
        }
        for (int i : new int[] {3, 5, 6, 8, 9}) {
            assertThat(r1.isMessageDeleted(ps.get(i))).as("e-%s not acked", i).isFalse();
        }
        assertThat(r1.getNumberOfEntriesInBacklog(true)).isEqualTo(5);
        assertThat(r1.getNumberOfEntriesInBacklog(false)).isEqualTo(5);
        assertThat(r1.getProperties()).isEqualTo(Map.of("seq", 2L));
        assertThat(r1.getCursorProperties()).containsEntry("sub", "props").containsEntry("k", "v");
        assertThat(r1.getDeletedBatchIndexesAsLongArray(p5)).isNotNull();
        assertThat(BitSet.valueOf(r1.getDeletedBatchIndexesAsLongArray(p5)))
                .isEqualTo(BitSet.valueOf(unacked(8, 0, 1)));
        assertPos(r1.getReadPosition(), ps.get(3));
        assertThat(texts(readAll(r1))).containsExactly("e-3", "e-5", "e-6", "e-8", "e-9");

        ManagedCursor r2 = cursor(again, "c2");
        assertMarkDelete(r2, ps.get(8));
        assertThat(texts(readAll(r2))).containsExactly("e-9");

        Position next = again.addEntry(bytes("after-restart"));
        assertThat(next.compareTo(last)).isPositive();
        assertThat(texts(readAll(r2))).containsExactly("after-restart");
    }

    @Test
    void reopenAnEmptyLedger() throws Exception {
        ManagedLedger ml = open();
        ml.openCursor("c");
        ml.close();
        restart();

        ManagedLedger again = open();
        assertThat(again.getNumberOfEntries()).isZero();
        ManagedCursor c = cursor(again, "c");
        assertThat(c.getNumberOfEntriesInBacklog(true)).isZero();
        assertThat(c.readEntries(5)).isEmpty();
        again.addEntry(bytes("first"));
        assertThat(texts(readAll(c))).containsExactly("first");
    }

    @Test
    void reopenAfterRolloverReadsAcrossAllLedgers() throws Exception {
        ManagedLedgerConfig cfg = config().setMaxEntriesPerLedger(2);
        ManagedLedger ml = open(cfg);
        List<Position> ps = addEntries(ml, "e", 7);
        ml.close();
        restart();

        ManagedLedger again = open(cfg);
        assertThat(again.getLedgersInfo().keySet())
                .containsAll(ps.stream().map(Position::getLedgerId).toList());
        ManagedCursor c = again.openCursor("c", InitialPosition.Earliest);
        List<Read> reads = readAll(c);
        assertThat(texts(reads)).isEqualTo(names("e", 0, 7));
        assertThat(positionsOf(reads)).isEqualTo(norm(ps));
        List<Position> more = addEntries(again, "f", 3);
        assertThat(more.get(0).compareTo(ps.get(6))).isPositive();
        assertStrictlyIncreasing(more);
    }

    @Test
    void crashKeepsAcknowledgedAddsAndPersistedCursorState() throws Exception {
        ManagedLedgerConfig cfg = config().setMaxEntriesPerLedger(4);
        ManagedLedger ml = open(cfg);
        ManagedCursor c = ml.openCursor("c", InitialPosition.Earliest);
        List<Position> ps = addEntries(ml, "e", 10);
        List<CompletableFuture<Position>> asyncAdds = new ArrayList<>();
        for (int i = 10; i < 30; i++) {
            asyncAdds.add(addAsync(ml, bytes("e-" + i)));
        }
        for (CompletableFuture<Position> f : asyncAdds) {
            ps.add(await(f));
        }
        Position lastAcked = ps.get(29);

        c.markDelete(ps.get(3));
        // "flushed": the persisted mark-delete has caught up with e-3
        Awaitility.await()
                .atMost(WAIT)
                .pollInterval(Duration.ofMillis(20))
                .ignoreExceptions()
                .untilAsserted(() -> {
                    Position persisted = c.getPersistentMarkDeletedPosition();
                    assertThat(persisted).isNotNull();
                    assertThat(persisted.compareTo(ps.get(3))).isGreaterThanOrEqualTo(0);
                });
        c.markDelete(ps.get(6));
        c.delete(ps.get(8));

        crash();
        ManagedLedger again = open(cfg);
        assertPos(again.getLastConfirmedEntry(), lastAcked);
        assertThat(again.getNumberOfEntries()).isEqualTo(30);
        ManagedCursor all = again.newNonDurableCursor(PositionFactory.EARLIEST);
        List<Read> reads = readAll(all);
        assertThat(texts(reads)).isEqualTo(names("e", 0, 30));
        assertThat(positionsOf(reads)).isEqualTo(norm(ps));

        ManagedCursor rc = cursor(again, "c");
        Position md = rc.getMarkDeletedPosition();
        assertThat(md.compareTo(ps.get(3)))
                .as("mark-delete %s is at least the flushed e-3", md)
                .isGreaterThanOrEqualTo(0);
        assertThat(md.compareTo(ps.get(6)))
                .as("mark-delete %s is at most the acked e-6", md)
                .isLessThanOrEqualTo(0);
        for (int i = 0; i <= 3; i++) {
            assertThat(rc.isMessageDeleted(ps.get(i))).isTrue();
        }
        assertThat(rc.isMessageDeleted(ps.get(7))).isFalse();
        assertThat(rc.isMessageDeleted(ps.get(9))).isFalse();

        Position next = again.addEntry(bytes("after-crash"));
        assertThat(next.compareTo(lastAcked)).isPositive();
        assertThat(texts(readAll(all))).containsExactly("after-crash");
        List<String> remaining = texts(readAll(rc));
        assertThat(remaining)
                .endsWith("e-29", "after-crash")
                .contains("e-7", "e-9")
                .doesNotContain("e-0", "e-3");
    }

    @Test
    void crashRightAfterAddsAndCursorCreation() throws Exception {
        ManagedLedger ml = open();
        ml.openCursor("created-before-crash", InitialPosition.Earliest);
        List<Position> ps = addEntries(ml, "e", 5);

        crash();
        ManagedLedger again = open();
        assertPos(again.getLastConfirmedEntry(), ps.get(4));
        ManagedCursor c = cursor(again, "created-before-crash");
        assertThat(c.getNumberOfEntriesInBacklog(true)).isEqualTo(5);
        assertThat(texts(readAll(c))).isEqualTo(names("e", 0, 5));

        // and once more, with the recovered ledger
        again.addEntry(bytes("e-5"));
        crash();
        ManagedLedger third = open();
        assertThat(third.getNumberOfEntries()).isEqualTo(6);
        assertThat(texts(readAll(third.newNonDurableCursor(PositionFactory.EARLIEST))))
                .isEqualTo(names("e", 0, 6));
    }
}
