package dev.lakestream.pulsar.cursor;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.lakestream.core.cursor.DurableCursor;
import java.util.concurrent.CompletableFuture;
import org.apache.bookkeeper.mledger.ManagedCursor.IndividualDeletedEntries;
import org.apache.bookkeeper.mledger.ManagedLedgerException;
import org.apache.bookkeeper.mledger.Position;
import org.apache.bookkeeper.mledger.PositionFactory;

/**
 * Moves a cursor: the read position alone (rewind, seek), both positions to anywhere in the ledger (reset: forgets
 * the acks there were), or the mark-delete forward (skip n entries, clear the backlog; these are mark-deletes).
 *
 * <p>Locks: positions and acks move together under the owning cursor's monitor ({@link #monitor}), which this class
 * never takes: its {@code ...Locked} methods are called holding it, by the cursor directly or, for the step of a
 * reset, through {@link CursorOwner#resetTo}. The parked read is resumed outside it.
 */
final class CursorRepositioning {

    private final CursorOwner cursor;

    /** The owning cursor's monitor; the cursor takes it as {@code moves.monitor} to call the {@code ...Locked} methods. */
    final Object monitor;

    private final CursorLedger ml;
    private final DurableCursor dc;
    private final BatchIndexAcks batchAcks;
    private final CursorReadPosition readPosition;
    private final CursorAcks acks;
    private final CursorReader reader;

    CursorRepositioning(
            CursorOwner cursor,
            Object monitor,
            CursorLedger ml,
            DurableCursor dc,
            BatchIndexAcks batchAcks,
            CursorReadPosition readPosition,
            CursorAcks acks,
            CursorReader reader) {
        this.cursor = cursor;
        this.monitor = monitor;
        this.ml = ml;
        this.dc = dc;
        this.batchAcks = batchAcks;
        this.readPosition = readPosition;
        this.acks = acks;
        this.reader = reader;
    }

    /** Reads again from the first entry after the mark-delete. */
    @GuardedBy("monitor")
    void rewindLocked() {
        readPosition.moveTo(dc.ackedBefore());
    }

    /** Reads next from offset {@code off}; unless forced, not before the mark-delete. */
    @GuardedBy("monitor")
    void seekLocked(long off, boolean force) {
        long target = off;
        if (!force && target < dc.ackedBefore()) {
            target = dc.ackedBefore();
        }
        readPosition.moveTo(target);
    }

    CompletableFuture<Void> reset(Position position, boolean force) {
        if (cursor.isClosed()) {
            return CompletableFuture.failedFuture(cursor.closedException());
        }
        long start = ml.startOffset();
        long lce = ml.lceOffset();
        // Pulsar's "latest" and "earliest" (pulsar-admin topics create-subscription and reset-cursor default to
        // latest) stand for after the last entry and the first entry, as BookKeeper's cursor reads them.
        long off = position.equals(PositionFactory.LATEST)
                ? lce + 1
                : position.equals(PositionFactory.EARLIEST) ? start : ml.offsetOf(position);
        if (!force && (off < start - 1 || off > lce + 1)) {
            return CompletableFuture.failedFuture(new ManagedLedgerException.InvalidCursorPositionException(
                    "cannot reset cursor " + cursor.name() + " to " + position + ": not within the ledger"));
        }
        off = Math.max(start, Math.min(off, lce + 1));
        CompletableFuture<Void> w = cursor.resetTo(off);
        reader.resumeWaiting();
        return w;
    }

    /** Moves both positions to {@code off}, forgetting the acks; completes when that is stored. */
    @GuardedBy("monitor")
    CompletableFuture<Void> resetToLocked(long off) {
        CompletableFuture<Void> w = dc.reset(off);
        if (batchAcks.clear()) {
            w = batchAcks.persist();
        }
        readPosition.moveTo(off);
        return w;
    }

    /** Mark-deletes everything up to the last confirmed entry. */
    CompletableFuture<Void> clearBacklog() {
        Position lce = ml.getLastConfirmedEntry();
        if (ml.offsetOf(lce) < dc.ackedBefore()) {
            return CompletableFuture.completedFuture(null);
        }
        return acks.markDelete(lce, dc.positionProperties());
    }

    /** Mark-deletes the next {@code n} entries (or all there are). */
    CompletableFuture<Void> skip(int n, IndividualDeletedEntries deletedEntries) {
        long lce = ml.lceOffset();
        long target = nthOffset(n, deletedEntries, lce);
        if (target < 0) {
            target = lce;
        }
        if (target < dc.ackedBefore()) {
            return CompletableFuture.completedFuture(null);
        }
        return acks.markDelete(ml.positionOf(target), dc.positionProperties());
    }

    /** The offset of the n-th entry after the mark-delete, at most {@code lce}; -1 when there are fewer. */
    long nthOffset(long n, IndividualDeletedEntries deletedEntries, long lce) {
        long off = Math.max(dc.ackedBefore(), ml.startOffset()) - 1;
        long counted = 0;
        while (counted < n && off < lce) {
            off++;
            if (deletedEntries == IndividualDeletedEntries.Include || !dc.isAcked(off)) {
                counted++;
            }
        }
        return counted < n ? -1 : off;
    }
}
