package dev.lakestream.pulsar.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.BitSet;
import java.util.List;
import java.util.Map;
import org.apache.bookkeeper.mledger.ManagedCursor;
import org.apache.bookkeeper.mledger.ManagedLedger;
import org.apache.bookkeeper.mledger.ManagedLedgerConfig;
import org.apache.bookkeeper.mledger.ManagedLedgerException;
import org.apache.bookkeeper.mledger.Position;
import org.apache.bookkeeper.mledger.PositionFactory;
import org.apache.bookkeeper.mledger.impl.AckSetStateUtil;
import org.apache.pulsar.common.api.proto.CommandSubscribe.InitialPosition;
import org.junit.jupiter.api.Test;

/** Acknowledgements: cumulative mark-delete, individual deletes and holes, backlog counters, batch-index acks. */
public abstract class AckConformanceTest extends ManagedLedgerConformanceTest {

    @Test
    void markDeleteIsCumulative() throws Exception {
        ManagedLedger ml = open();
        ManagedCursor c = ml.openCursor("c", InitialPosition.Earliest);
        List<Position> ps = addEntries(ml, "e", 5);
        assertThat(readAll(c)).hasSize(5);

        c.markDelete(ps.get(2));
        assertMarkDelete(c, ps.get(2));
        for (int i = 0; i < 5; i++) {
            assertThat(c.isMessageDeleted(ps.get(i))).as("entry %s deleted", i).isEqualTo(i <= 2);
        }
        assertThat(c.getNumberOfEntriesInBacklog(true)).isEqualTo(2);
        assertThat(c.getNumberOfEntriesInBacklog(false)).isEqualTo(2);
        assertThat(c.getNumberOfEntries()).as("everything was read").isZero();

        c.markDelete(ps.get(4));
        assertThat(c.getNumberOfEntriesInBacklog(true)).isZero();
        assertThat(c.getNumberOfEntriesInBacklog(false)).isZero();
        assertThat(c.hasBacklog()).isFalse();
    }

    @Test
    void markDeleteAcrossLedgers() throws Exception {
        ManagedLedger ml = open(config().setMaxEntriesPerLedger(2));
        ManagedCursor c = ml.openCursor("c", InitialPosition.Earliest);
        List<Position> ps = addEntries(ml, "e", 7);
        c.markDelete(ps.get(4));
        assertMarkDelete(c, ps.get(4));
        assertThat(c.getNumberOfEntriesInBacklog(true)).isEqualTo(2);
        assertThat(c.getNumberOfEntriesInBacklog(false)).isEqualTo(2);
        assertThat(texts(readAll(c))).containsExactly("e-5", "e-6");
    }

    @Test
    void markDeletePastTheReadPositionMovesTheReadPosition() throws Exception {
        ManagedLedger ml = open();
        ManagedCursor c = ml.openCursor("c", InitialPosition.Earliest);
        List<Position> ps = addEntries(ml, "e", 6);
        assertPos(c.getReadPosition(), ps.get(0));

        c.markDelete(ps.get(3));
        assertPos(c.getReadPosition(), ps.get(4));
        assertThat(c.getNumberOfEntries()).isEqualTo(2);
        assertThat(texts(readAll(c))).containsExactly("e-4", "e-5");
    }

    @Test
    void markDeleteBackwardsFails() throws Exception {
        ManagedLedger ml = open();
        ManagedCursor c = ml.openCursor("c", InitialPosition.Earliest);
        List<Position> ps = addEntries(ml, "e", 5);
        c.markDelete(ps.get(3));
        assertThatThrownBy(() -> c.markDelete(ps.get(1))).isInstanceOf(ManagedLedgerException.class);
        assertMarkDelete(c, ps.get(3));
        c.markDelete(ps.get(3)); // the same position again is fine
        assertMarkDelete(c, ps.get(3));
    }

    @Test
    void markDeleteBeyondTheLastEntryFails() throws Exception {
        ManagedLedger ml = open();
        ManagedCursor c = ml.openCursor("c", InitialPosition.Earliest);
        List<Position> ps = addEntries(ml, "e", 3);
        Position beyond =
                PositionFactory.create(ps.get(2).getLedgerId(), ps.get(2).getEntryId() + 5);
        assertThatThrownBy(() -> c.markDelete(beyond)).isInstanceOf(ManagedLedgerException.class);
        assertThat(c.getNumberOfEntriesInBacklog(true)).isEqualTo(3);
    }

    @Test
    void markDeleteCarriesProperties() throws Exception {
        ManagedLedger ml = open();
        ManagedCursor c = ml.openCursor("c", InitialPosition.Earliest);
        List<Position> ps = addEntries(ml, "e", 3);
        c.markDelete(ps.get(0), Map.of("seq", 10L));
        assertThat(c.getProperties()).isEqualTo(Map.of("seq", 10L));
        await(markDeleteAsync(c, ps.get(1), Map.of("seq", 11L, "other", 1L)));
        assertThat(c.getProperties()).isEqualTo(Map.of("seq", 11L, "other", 1L));
        assertMarkDelete(c, ps.get(1));
    }

    @Test
    void individualDeletesLeaveHoles() throws Exception {
        ManagedLedger ml = open();
        ManagedCursor c = ml.openCursor("c", InitialPosition.Earliest);
        Position md = c.getMarkDeletedPosition();
        List<Position> ps = addEntries(ml, "e", 6);

        c.delete(ps.get(1));
        c.delete(ps.get(3));
        assertMarkDelete(c, md);
        assertThat(c.isMessageDeleted(ps.get(0))).isFalse();
        assertThat(c.isMessageDeleted(ps.get(1))).isTrue();
        assertThat(c.isMessageDeleted(ps.get(2))).isFalse();
        assertThat(c.isMessageDeleted(ps.get(3))).isTrue();
        assertThat(c.getNumberOfEntriesInBacklog(true)).isEqualTo(4);
        assertThat(c.getNumberOfEntriesInBacklog(false)).isEqualTo(4);
        assertThat(c.getNumberOfEntries()).isEqualTo(4);
        assertThat(c.getTotalNonContiguousDeletedMessagesRange()).isEqualTo(2);
        assertThat(c.getLastIndividualDeletedRange()).isNotNull();
        assertThat(c.getLastIndividualDeletedRange()
                        .contains(PositionFactory.create(
                                ps.get(3).getLedgerId(), ps.get(3).getEntryId())))
                .isTrue();
    }

    @Test
    void deletingTheFirstUnackedEntryMovesMarkDeleteOverTheHoles() throws Exception {
        ManagedLedger ml = open();
        ManagedCursor c = ml.openCursor("c", InitialPosition.Earliest);
        List<Position> ps = addEntries(ml, "e", 6);

        c.delete(ps.get(1));
        c.delete(ps.get(2));
        await(deleteAsync(c, List.of(ps.get(0))));
        assertMarkDelete(c, ps.get(2));
        assertThat(c.getTotalNonContiguousDeletedMessagesRange()).isZero();

        c.delete(ps.get(4));
        assertMarkDelete(c, ps.get(2));
        c.delete(ps.get(3));
        assertMarkDelete(c, ps.get(4));
        assertThat(c.getNumberOfEntriesInBacklog(true)).isEqualTo(1);
        assertThat(c.getNumberOfEntriesInBacklog(false)).isEqualTo(1);
    }

    @Test
    void markDeleteOverHolesAbsorbsThem() throws Exception {
        ManagedLedger ml = open();
        ManagedCursor c = ml.openCursor("c", InitialPosition.Earliest);
        List<Position> ps = addEntries(ml, "e", 6);
        c.delete(ps.get(2));
        c.delete(ps.get(3));
        c.delete(ps.get(5));
        c.markDelete(ps.get(1));
        assertMarkDelete(c, ps.get(3));
        assertThat(c.getNumberOfEntriesInBacklog(true)).isEqualTo(1);
        assertThat(c.isMessageDeleted(ps.get(4))).isFalse();
        assertThat(c.isMessageDeleted(ps.get(5))).isTrue();
    }

    @Test
    void deleteOfAListActsOnEveryPosition() throws Exception {
        ManagedLedger ml = open(config().setMaxEntriesPerLedger(2));
        ManagedCursor c = ml.openCursor("c", InitialPosition.Earliest);
        List<Position> ps = addEntries(ml, "e", 5);
        c.delete(List.of(ps.get(0), ps.get(1), ps.get(2)));
        assertMarkDelete(c, ps.get(2));
        c.delete(List.of(ps.get(4)));
        assertThat(c.getNumberOfEntriesInBacklog(true)).isEqualTo(1);
        assertThat(texts(readAll(c))).containsExactly("e-3");
    }

    @Test
    void deletingTwiceIsHarmless() throws Exception {
        ManagedLedger ml = open();
        ManagedCursor c = ml.openCursor("c", InitialPosition.Earliest);
        List<Position> ps = addEntries(ml, "e", 4);
        c.delete(ps.get(2));
        c.delete(ps.get(2));
        assertThat(c.getNumberOfEntriesInBacklog(true)).isEqualTo(3);
        assertThat(c.getNumberOfEntriesInBacklog(false)).isEqualTo(3);
        c.markDelete(ps.get(0));
        c.delete(ps.get(0)); // already covered by the mark-delete
        assertThat(c.getNumberOfEntriesInBacklog(true)).isEqualTo(2);
    }

    @Test
    void deleteBeyondTheLastEntryFails() throws Exception {
        ManagedLedger ml = open();
        ManagedCursor c = ml.openCursor("c", InitialPosition.Earliest);
        List<Position> ps = addEntries(ml, "e", 2);
        Position beyond =
                PositionFactory.create(ps.get(1).getLedgerId(), ps.get(1).getEntryId() + 3);
        assertThatThrownBy(() -> c.delete(beyond)).isInstanceOf(ManagedLedgerException.class);
    }

    @Test
    void backlogFollowsAddsAndAcks() throws Exception {
        ManagedLedger ml = open();
        ManagedCursor c = ml.openCursor("c");
        assertThat(c.getNumberOfEntriesInBacklog(false)).isZero();
        List<Position> ps = addEntries(ml, "e", 3);
        assertThat(c.getNumberOfEntriesInBacklog(false)).isEqualTo(3);
        assertThat(c.getNumberOfEntriesInBacklog(true)).isEqualTo(3);
        assertThat(c.hasBacklog()).isTrue();
        c.delete(ps.get(1));
        assertThat(c.getNumberOfEntriesInBacklog(false)).isEqualTo(2);
        addEntries(ml, "f", 2);
        assertThat(c.getNumberOfEntriesInBacklog(false)).isEqualTo(4);
        assertThat(c.getNumberOfEntriesInBacklog(true)).isEqualTo(4);
    }

    // ------------------------------------------------------------------ batch-index acknowledgements

    /** The bits of a batch of {@code size} messages that are still unacknowledged (set = not acked, as Pulsar). */
    private static long[] unacked(int size, int... acked) {
        BitSet bits = new BitSet(size);
        bits.set(0, size);
        for (int i : acked) {
            bits.clear(i);
        }
        return bits.toLongArray();
    }

    private ManagedLedgerConfig batchConfig() {
        ManagedLedgerConfig cfg = config();
        cfg.setDeletionAtBatchIndexLevelEnabled(true);
        return cfg;
    }

    private static BitSet bits(long[] words) {
        return words == null ? null : BitSet.valueOf(words);
    }

    @Test
    void batchIndexAcksKeepTheEntryUntilEveryIndexIsAcked() throws Exception {
        ManagedLedger ml = open(batchConfig());
        ManagedCursor c = ml.openCursor("c", InitialPosition.Earliest);
        List<Position> ps = addEntries(ml, "batch", 3);
        Position p = ps.get(0);

        c.delete(AckSetStateUtil.createPositionWithAckSet(p.getLedgerId(), p.getEntryId(), unacked(8, 0, 1, 2)));
        assertThat(c.isMessageDeleted(p)).isFalse();
        assertThat(bits(c.getDeletedBatchIndexesAsLongArray(p))).isEqualTo(bits(unacked(8, 0, 1, 2)));
        assertThat(c.getNumberOfEntriesInBacklog(true)).isEqualTo(3);

        // A second partial ack is merged with the first (acked indexes stay acked).
        c.delete(AckSetStateUtil.createPositionWithAckSet(p.getLedgerId(), p.getEntryId(), unacked(8, 5)));
        assertThat(bits(c.getDeletedBatchIndexesAsLongArray(p))).isEqualTo(bits(unacked(8, 0, 1, 2, 5)));
        assertThat(c.isMessageDeleted(p)).isFalse();

        // Acking the remaining indexes deletes the entry.
        c.delete(AckSetStateUtil.createPositionWithAckSet(
                p.getLedgerId(), p.getEntryId(), unacked(8, 0, 1, 2, 3, 4, 5, 6, 7)));
        assertThat(c.isMessageDeleted(p)).isTrue();
        assertMarkDelete(c, p);
        assertThat(c.getDeletedBatchIndexesAsLongArray(p)).isNull();
        assertThat(c.getNumberOfEntriesInBacklog(true)).isEqualTo(2);
    }

    @Test
    void batchIndexAckOfAMiddleEntryIsAHoleOnlyWhenComplete() throws Exception {
        ManagedLedger ml = open(batchConfig());
        ManagedCursor c = ml.openCursor("c", InitialPosition.Earliest);
        List<Position> ps = addEntries(ml, "batch", 3);
        Position mid = ps.get(1);

        c.delete(AckSetStateUtil.createPositionWithAckSet(mid.getLedgerId(), mid.getEntryId(), unacked(4, 1)));
        assertThat(c.getDeletedBatchIndexesAsLongArray(ps.get(0)))
                .as("other entries untouched")
                .isNull();
        assertThat(bits(c.getDeletedBatchIndexesAsLongArray(mid))).isEqualTo(bits(unacked(4, 1)));
        c.delete(AckSetStateUtil.createPositionWithAckSet(mid.getLedgerId(), mid.getEntryId(), new long[0]));
        assertThat(c.isMessageDeleted(mid)).isTrue();
        assertThat(c.getDeletedBatchIndexesAsLongArray(mid)).isNull();
        assertThat(c.getNumberOfEntriesInBacklog(true)).isEqualTo(2);

        c.delete(ps.get(0));
        assertMarkDelete(c, mid);
    }

    @Test
    void markDeleteOfABatchPositionAcksUpToThePreviousEntry() throws Exception {
        ManagedLedger ml = open(batchConfig());
        ManagedCursor c = ml.openCursor("c", InitialPosition.Earliest);
        List<Position> ps = addEntries(ml, "batch", 4);
        Position p2 = ps.get(2);

        c.markDelete(AckSetStateUtil.createPositionWithAckSet(p2.getLedgerId(), p2.getEntryId(), unacked(8, 0, 1, 2)));
        assertMarkDelete(c, ps.get(1));
        assertThat(c.isMessageDeleted(p2)).isFalse();
        assertThat(bits(c.getDeletedBatchIndexesAsLongArray(p2))).isEqualTo(bits(unacked(8, 0, 1, 2)));
        assertThat(c.getNumberOfEntriesInBacklog(true)).isEqualTo(2);
    }
}
