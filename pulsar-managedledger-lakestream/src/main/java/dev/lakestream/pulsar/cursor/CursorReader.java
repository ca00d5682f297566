package dev.lakestream.pulsar.cursor;

import dev.lakestream.core.log.LogEntry;
import dev.lakestream.pulsar.common.Errors;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.bookkeeper.mledger.Entry;
import org.apache.bookkeeper.mledger.ManagedLedgerException;

/**
 * A cursor's reads: from the first entry not acknowledged at or after the read position up to the last confirmed
 * entry (and the request's bound), in rounds of ledger reads until the request is full, moving the read position past
 * what it read. An "or wait" request that finds nothing is parked as the cursor's one waiting read, and the ledger
 * resumes it when entries arrive. Entries left out (acknowledged, beyond the limits, or skipped) are released here.
 *
 * <p>Takes no lock: the read position is taken and moved by named steps of the owning cursor ({@link
 * CursorOwner#beginRead}, {@link CursorOwner#readUpTo}), which hold its monitor for that step only, never across a
 * ledger call.
 */
final class CursorReader {

    private final CursorOwner cursor;
    private final CursorLedger ml;
    private final AtomicReference<CursorReadRequest> waiting = new AtomicReference<>();

    CursorReader(CursorOwner cursor, CursorLedger ml) {
        this.cursor = cursor;
        this.ml = ml;
    }

    void start(CursorReadRequest op) {
        if (cursor.failIfClosed(op)) {
            return;
        }
        readLoop(op);
    }

    private void readLoop(CursorReadRequest op) {
        long lce = ml.lceOffset();
        long start = ml.startOffset();
        long from;
        long epoch = cursor.beginRead(op, start);
        if (epoch < 0) {
            return;
        }
        from = cursor.firstUnackedFrom(cursor.readOffset());
        if (from > lce) {
            if (op.hasEntries()) {
                op.complete();
            } else if (ml.isTerminated() && op.waits()) {
                op.fail(new ManagedLedgerException.NoMoreEntriesToReadException(
                        "the managed ledger " + ml.getName() + " was terminated"));
            } else if (ml.isClosedOrDeleted()) {
                op.fail(new ManagedLedgerException.ManagedLedgerAlreadyClosedException(
                        "the managed ledger " + ml.getName() + " is closed"));
            } else if (op.waits()) {
                if (!waiting.compareAndSet(null, op)) {
                    op.fail(new ManagedLedgerException.ConcurrentWaitCallbackException());
                    return;
                }
                cursor.waitForEntries();
            } else {
                op.complete();
            }
            return;
        }
        long bound = Math.min(lce, op.maxOffset());
        if (from > bound) {
            op.complete();
            return;
        }
        int want = (int) Math.min(op.entriesWanted(), bound - from + 1);
        // the callback completes or fails the read op either way.
        var unused = ml.readRaw(from, want, Math.max(1, op.bytesWanted())).whenComplete((list, e) -> {
            if (e != null) {
                if (op.hasEntries()) {
                    op.complete();
                } else {
                    op.fail(Errors.toMl(e));
                }
                return;
            }
            long last = from - 1;
            for (LogEntry le : list) {
                long off = le.offset();
                if (off > bound || op.isFull()) {
                    le.payload().release();
                    continue;
                }
                last = off;
                if (cursor.isAcked(off)) {
                    le.payload().release();
                    continue;
                }
                Entry entry = ml.toEntry(le);
                if (op.skips(entry.getPosition())) {
                    entry.release();
                    continue;
                }
                op.add(entry);
            }
            cursor.readUpTo(last + 1, epoch);
            if (list.isEmpty() || last >= bound || op.isFull()) {
                op.complete();
            } else {
                readLoop(op);
            }
        });
    }

    /** Whether a parked read would find something now (or should fail: the ledger is terminated or closed). */
    boolean hasEntriesBeyondRead(long lce) {
        return cursor.firstUnackedFrom(cursor.readOffset()) <= lce || ml.isTerminated() || ml.isClosedOrDeleted();
    }

    /** Resumes the parked read, if any. */
    void notifyEntriesAvailable() {
        CursorReadRequest op = waiting.getAndSet(null);
        if (op != null) {
            readLoop(op);
        }
    }

    /** Resumes the parked read after the cursor moved: it may now find entries behind the last confirmed one. */
    void resumeWaiting() {
        if (waiting.get() != null) {
            notifyEntriesAvailable();
        }
    }

    /** Drops the parked read without completing it; true when there was one. */
    boolean cancelWaiting() {
        CursorReadRequest op = waiting.getAndSet(null);
        cursor.stopWaitingForEntries();
        return op != null;
    }

    /** Fails the parked read: the cursor is closing. */
    void failWaiting(ManagedLedgerException e) {
        CursorReadRequest op = waiting.getAndSet(null);
        if (op != null) {
            op.fail(e);
        }
    }

    boolean hasWaitingRead() {
        return waiting.get() != null;
    }
}
