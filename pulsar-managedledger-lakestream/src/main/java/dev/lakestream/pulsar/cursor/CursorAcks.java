package dev.lakestream.pulsar.cursor;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.lakestream.core.concurrent.Futures;
import dev.lakestream.core.cursor.DurableCursor;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.bookkeeper.mledger.ManagedLedgerException;
import org.apache.bookkeeper.mledger.Position;
import org.apache.bookkeeper.mledger.impl.AckSetStateUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A cursor's acknowledgements: mark-delete (everything up to a position; up to a partly acknowledged batch, whose ack
 * set is kept) and individual acks (whole entries as the core cursor's ack ranges, batch indexes in
 * {@link BatchIndexAcks}), and the questions asked of them. Keeps the read position at or after the mark-delete.
 *
 * <p>Locks: the acks, the batch ack sets and the read position are changed together under the owning cursor's
 * monitor ({@link #monitor}), which this class never takes: its {@code ...Locked} methods are called holding it, by the
 * cursor directly or, for the steps of a mark-delete or an ack, through {@link CursorOwner}. The completion of a write
 * is chained outside it.
 */
final class CursorAcks {

    private static final Logger LOG = LoggerFactory.getLogger(CursorAcks.class);

    private final CursorOwner cursor;

    /**
     * The owning cursor's monitor. The cursor takes it as {@code acks.monitor} to call the {@code ...Locked} methods:
     * Error Prone matches a lock by the expression that names it.
     */
    final Object monitor;

    private final CursorLedger ml;
    private final DurableCursor dc;
    private final BatchIndexAcks batchAcks;
    private final CursorReadPosition readPosition;

    CursorAcks(
            CursorOwner cursor,
            Object monitor,
            CursorLedger ml,
            DurableCursor dc,
            BatchIndexAcks batchAcks,
            CursorReadPosition readPosition) {
        this.cursor = cursor;
        this.monitor = monitor;
        this.ml = ml;
        this.dc = dc;
        this.batchAcks = batchAcks;
        this.readPosition = readPosition;
    }

    /** Whether the entry at {@code off} is acknowledged whole (a partly acknowledged batch is not). */
    @GuardedBy("monitor")
    boolean isAckedLocked(long off) {
        return dc.isAcked(off) && !batchAcks.isPartlyAcked(off);
    }

    /** The first offset at or after {@code offset} and the mark-delete that the core cursor has not acknowledged. */
    @GuardedBy("monitor")
    long firstUnackedFromLocked(long offset) {
        long o = Math.max(offset, dc.ackedBefore());
        while (dc.isAcked(o)) {
            o++;
        }
        return o;
    }

    /** A copy of the ack set of the batch at {@code off}, or null when it is not acknowledged in part. */
    @GuardedBy("monitor")
    long[] batchAckSetLocked(long off) {
        return batchAcks.ackSet(off);
    }

    CompletableFuture<Void> markDelete(Position position, Map<String, Long> properties) {
        if (cursor.isClosed()) {
            return CompletableFuture.failedFuture(cursor.closedException());
        }
        long off = ml.offsetOf(position);
        long lce = ml.lceOffset();
        long[] ackSet = ml.getConfig().isDeletionAtBatchIndexLevelEnabled()
                ? AckSetStateUtil.getAckSetArrayOrNull(position)
                : null;
        if (ackSet != null && !BatchIndexAcks.allAcked(ackSet) && off <= lce && off >= dc.ackedBefore()) {
            // A batch partly acknowledged: everything before it is mark-deleted, the batch keeps its ack set.
            cursor.keepPartlyAckedBatch(off, ackSet, position);
            off = off - 1;
        }
        if (off > lce) {
            return CompletableFuture.failedFuture(
                    new ManagedLedgerException.InvalidCursorPositionException("Invalid mark deleted position "
                            + position + ": after the last entry " + ml.getLastConfirmedEntry()));
        }
        MarkDeleteStep step = cursor.markDeleteTo(off, position, properties);
        if (step.moved()) {
            ml.recordMarkDelete();
        }
        return step.write();
    }

    /** Keeps the ack set of the batch at {@code off}, acknowledged in part by a mark-delete at {@code position}. */
    @GuardedBy("monitor")
    void keepPartlyAckedBatchLocked(long off, long[] ackSet, Position position) {
        batchAcks.put(off, batchAcks.intersect(off, ackSet));
        // Joins the cursor's next write, which the mark-delete may not wait for (it can return early).
        Futures.logFailure(batchAcks.persist(), LOG, "persisting the ack set of entry " + position);
    }

    /**
     * What a mark-delete step did: {@code write} completes when it is stored; {@code moved} when the mark-delete moved
     * forward (else it failed, or only the properties changed).
     */
    record MarkDeleteStep(CompletableFuture<Void> write, boolean moved) {}

    /** Mark-deletes everything up to {@code off} (from a mark-delete at {@code position}). */
    @GuardedBy("monitor")
    MarkDeleteStep markDeleteToLocked(long off, Position position, Map<String, Long> properties) {
        if (off + 1 < dc.ackedBefore()) {
            return new MarkDeleteStep(
                    CompletableFuture.failedFuture(new ManagedLedgerException("Mark-deleting " + position
                            + " of cursor " + cursor.name() + " would move it back from "
                            + ml.positionOf(dc.ackedBefore() - 1))),
                    false);
        }
        if (off + 1 == dc.ackedBefore()) {
            return new MarkDeleteStep(
                    properties == null || properties.isEmpty()
                            ? CompletableFuture.completedFuture(null)
                            : dc.markDelete(dc.ackedBefore(), properties),
                    false);
        }
        CompletableFuture<Void> w = dc.markDelete(off + 1, properties == null ? Map.of() : properties);
        if (batchAcks.dropBelow(dc.ackedBefore())) {
            w = batchAcks.persist();
        }
        readPosition.advanceTo(dc.ackedBefore());
        return new MarkDeleteStep(w, true);
    }

    CompletableFuture<Void> delete(Iterable<Position> positions) {
        if (cursor.isClosed()) {
            return CompletableFuture.failedFuture(cursor.closedException());
        }
        long lce = ml.lceOffset();
        boolean batchEnabled = ml.getConfig().isDeletionAtBatchIndexLevelEnabled();
        List<long[]> offs = new ArrayList<>();
        List<long[]> sets = new ArrayList<>();
        for (Position p : positions) {
            long off = ml.offsetOf(p);
            if (off > lce) {
                return CompletableFuture.failedFuture(
                        new ManagedLedgerException.InvalidCursorPositionException("cannot delete " + p + " on cursor "
                                + cursor.name() + ": after the last entry " + ml.getLastConfirmedEntry()));
            }
            offs.add(new long[] {off});
            sets.add(batchEnabled ? AckSetStateUtil.getAckSetArrayOrNull(p) : null);
        }
        return cursor.ackEach(offs, sets, lce);
    }

    /**
     * Acknowledges the entries at {@code offs} (batch indexes only where {@code sets} has an ack set for one), those
     * at or before {@code lce}; completes when the last change is stored.
     */
    @GuardedBy("monitor")
    CompletableFuture<Void> ackEachLocked(List<long[]> offs, List<long[]> sets, long lce) {
        CompletableFuture<Void> w = CompletableFuture.completedFuture(null);
        boolean batchDirty = false;
        for (int i = 0; i < offs.size(); i++) {
            long off = offs.get(i)[0];
            if (off < dc.ackedBefore() || off > lce || isAckedLocked(off)) {
                continue;
            }
            long[] set = sets.get(i);
            if (set != null) {
                long[] merged = batchAcks.intersect(off, set);
                if (!BatchIndexAcks.allAcked(merged)) {
                    batchAcks.put(off, merged);
                    batchDirty = true;
                    continue;
                }
            }
            if (batchAcks.remove(off)) {
                batchDirty = true;
            }
            w = dc.ack(off, off + 1);
        }
        if (batchDirty) {
            batchAcks.dropBelow(dc.ackedBefore());
            w = batchAcks.persist();
        }
        readPosition.atLeast(dc.ackedBefore());
        return w;
    }
}
