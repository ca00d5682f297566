package dev.lakestream.pulsar.cursor;

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
 * monitor; the completion of a write is chained outside it.
 */
final class CursorAcks {

    private static final Logger LOG = LoggerFactory.getLogger(CursorAcks.class);

    private final CursorOwner cursor;
    private final CursorLedger ml;
    private final DurableCursor dc;
    private final BatchIndexAcks batchAcks;
    private final CursorReadPosition readPosition;

    CursorAcks(
            CursorOwner cursor,
            CursorLedger ml,
            DurableCursor dc,
            BatchIndexAcks batchAcks,
            CursorReadPosition readPosition) {
        this.cursor = cursor;
        this.ml = ml;
        this.dc = dc;
        this.batchAcks = batchAcks;
        this.readPosition = readPosition;
    }

    /** Whether the entry at {@code off} is acknowledged whole (a partly acknowledged batch is not). */
    boolean isAcked(long off) {
        synchronized (cursor.monitor()) {
            return dc.isAcked(off) && !batchAcks.isPartlyAcked(off);
        }
    }

    /** The first offset at or after {@code offset} and the mark-delete that the core cursor has not acknowledged. */
    long firstUnackedFrom(long offset) {
        synchronized (cursor.monitor()) {
            long o = Math.max(offset, dc.ackedBefore());
            while (dc.isAcked(o)) {
                o++;
            }
            return o;
        }
    }

    /** A copy of the ack set of the batch at {@code off}, or null when it is not acknowledged in part. */
    long[] batchAckSet(long off) {
        synchronized (cursor.monitor()) {
            return batchAcks.ackSet(off);
        }
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
            synchronized (cursor.monitor()) {
                batchAcks.put(off, batchAcks.intersect(off, ackSet));
                // Joins the cursor's next write, which the mark-delete below may not wait for (it can return early).
                Futures.logFailure(batchAcks.persist(), LOG, "persisting the ack set of entry " + position);
            }
            off = off - 1;
        }
        if (off > lce) {
            return CompletableFuture.failedFuture(
                    new ManagedLedgerException.InvalidCursorPositionException("Invalid mark deleted position "
                            + position + ": after the last entry " + ml.getLastConfirmedEntry()));
        }
        CompletableFuture<Void> w;
        synchronized (cursor.monitor()) {
            if (off + 1 < dc.ackedBefore()) {
                return CompletableFuture.failedFuture(new ManagedLedgerException("Mark-deleting " + position
                        + " of cursor " + cursor.name() + " would move it back from "
                        + ml.positionOf(dc.ackedBefore() - 1)));
            }
            if (off + 1 == dc.ackedBefore()) {
                return properties == null || properties.isEmpty()
                        ? CompletableFuture.completedFuture(null)
                        : dc.markDelete(dc.ackedBefore(), properties);
            }
            w = dc.markDelete(off + 1, properties == null ? Map.of() : properties);
            if (batchAcks.dropBelow(dc.ackedBefore())) {
                w = batchAcks.persist();
            }
            readPosition.advanceTo(dc.ackedBefore());
        }
        ml.recordMarkDelete();
        return w;
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
        CompletableFuture<Void> w = CompletableFuture.completedFuture(null);
        boolean batchDirty = false;
        synchronized (cursor.monitor()) {
            for (int i = 0; i < offs.size(); i++) {
                long off = offs.get(i)[0];
                if (off < dc.ackedBefore() || off > lce || isAcked(off)) {
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
        }
        return w;
    }
}
