package dev.lakestream.pulsar.ledger;

import dev.lakestream.pulsar.common.VirtualLedgers;
import org.apache.bookkeeper.mledger.Position;

/**
 * The one owner of a managed ledger's state: its lifecycle {@link Phase}, the last confirmed offset and position,
 * the start offset (first entry not trimmed) and the {@link VirtualLedgers}. Every change goes through a named
 * transition here; a move the lifecycle does not allow throws {@link IllegalStateException} naming both phases.
 *
 * <p><b>Threading rule (the only lock of a ledger).</b> This object's monitor guards the state above and, by
 * convention, the fields of the ledger's parts that change together with it ({@link AppendPipeline}'s queues,
 * {@link ManagedLedgerRecordWriter}'s record, {@link LedgerCursors}' registry, {@link LedgerLifecycle}'s close
 * future): they are marked "guarded by state" and their {@code ...Locked} methods are called holding it. Transitions
 * and getters take the monitor themselves (it is reentrant). A cursor's monitor may be taken while holding this one,
 * never the other way round. No callback, future completion or store call runs under it: callbacks run on the
 * ledger's {@link SerialExecutor}. {@link #lastConfirmed()} is also readable without the lock (volatile).
 */
final class LedgerState {

    /** A ledger's lifecycle. */
    enum Phase {
        OPEN,
        WRITE_FAILED,
        FENCED,
        TERMINATED,
        CLOSED,
        DELETED
    }

    private final String ledgerName;
    private final VirtualLedgers ledgers;

    // --- guarded by this
    private Phase phase;
    private long lceOffset;
    private long startOffset;
    private volatile Position lastConfirmed;

    LedgerState(String ledgerName, VirtualLedgers ledgers, long startOffset, boolean terminated) {
        this.ledgerName = ledgerName;
        this.ledgers = ledgers;
        this.phase = terminated ? Phase.TERMINATED : Phase.OPEN;
        this.lceOffset = ledgers.end() - 1;
        this.startOffset = startOffset;
        this.lastConfirmed = ledgers.positionOf(lceOffset);
    }

    // ------------------------------------------------------------------ reads

    synchronized Phase phase() {
        return phase;
    }

    synchronized boolean is(Phase p) {
        return phase == p;
    }

    synchronized boolean isClosedOrDeleted() {
        return phase == Phase.CLOSED || phase == Phase.DELETED;
    }

    /** The offset of the last confirmed entry; {@code startOffset() - 1} or less when there is none. */
    synchronized long lceOffset() {
        return lceOffset;
    }

    /** The offset of the first entry not trimmed away. */
    synchronized long startOffset() {
        return startOffset;
    }

    /** The position of the last confirmed entry; lock-free. */
    Position lastConfirmed() {
        return lastConfirmed;
    }

    /** The virtual ledgers, to read while holding this monitor; they change only through this class. */
    VirtualLedgers ledgersLocked() {
        return ledgers;
    }

    synchronized long offsetOf(Position p) {
        return ledgers.offsetOf(p);
    }

    synchronized Position positionOf(long offset) {
        return ledgers.positionOf(offset);
    }

    synchronized long totalSize() {
        long total = 0;
        for (int i = 0; i < ledgers.ledgers().size(); i++) {
            total += ledgers.size(i);
        }
        return total;
    }

    // ------------------------------------------------------------------ transitions of the confirmed tail

    /** The add at {@code offset} ({@code bytes} long, at {@code position}) completed: the confirmed tail moves. */
    synchronized void confirm(long offset, long bytes, Position position) {
        lceOffset = offset;
        ledgers.confirm(offset, bytes);
        lastConfirmed = position;
    }

    /**
     * Appends of failed adds landed all the same, up to {@code end} (exclusive): they are confirmed as part of the
     * current virtual ledger, with no size known.
     */
    synchronized void confirmLanded(long end) {
        confirm(end - 1, 0, ledgers.positionOf(end - 1));
    }

    /** A new virtual ledger {@code id} starts at {@code firstOffset}. */
    synchronized void roll(long id, long firstOffset, long now) {
        ledgers.roll(id, firstOffset, now);
    }

    /** Retention removed the virtual ledgers wholly below {@code target}: the start offset moves up to it. */
    synchronized void trimBelow(long target) {
        ledgers.removeBelow(target);
        startOffset = Math.max(startOffset, target);
    }

    // ------------------------------------------------------------------ lifecycle transitions

    /** An add or a rollover failed (not fenced): adds are refused until {@link #reopenForWrite()}. */
    synchronized void writeFailed() {
        move(Phase.WRITE_FAILED, Phase.OPEN);
    }

    /** After a failed write, the ledger accepts adds again (they go to a new virtual ledger). */
    synchronized void reopenForWrite() {
        move(Phase.OPEN, Phase.WRITE_FAILED);
    }

    /**
     * Another owner took the stream or the record. Allowed from a terminated ledger too: an add still in flight at
     * termination can be the one that finds the fence.
     */
    synchronized void fence() {
        move(Phase.FENCED, Phase.OPEN, Phase.WRITE_FAILED, Phase.FENCED, Phase.TERMINATED);
    }

    /** No adds after the last confirmed one. */
    synchronized void terminate() {
        move(Phase.TERMINATED, Phase.OPEN);
    }

    /** The ledger is closing; a deleted ledger stays deleted (delete closes it). */
    synchronized void close() {
        if (phase != Phase.DELETED) {
            move(Phase.CLOSED, Phase.OPEN, Phase.WRITE_FAILED, Phase.FENCED, Phase.TERMINATED, Phase.CLOSED);
        }
    }

    /** The ledger is being deleted (from any phase; deleting twice is allowed). */
    synchronized void delete() {
        phase = Phase.DELETED;
    }

    private void move(Phase to, Phase... allowedFrom) {
        for (Phase from : allowedFrom) {
            if (phase == from) {
                phase = to;
                return;
            }
        }
        throw new IllegalStateException(
                "managed ledger " + ledgerName + ": illegal state change from " + phase + " to " + to);
    }

    @Override
    public synchronized String toString() {
        return "LedgerState{" + ledgerName + ", " + phase + ", start " + startOffset + ", lce " + lceOffset + "}";
    }
}
