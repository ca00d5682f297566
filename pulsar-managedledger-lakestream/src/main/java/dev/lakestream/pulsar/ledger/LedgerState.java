package dev.lakestream.pulsar.ledger;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.lakestream.pulsar.common.ManagedLedgerRecord;
import dev.lakestream.pulsar.common.VirtualLedgers;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.apache.bookkeeper.mledger.Position;
import org.apache.bookkeeper.mledger.proto.ManagedLedgerInfo.LedgerInfo;
import org.apache.pulsar.common.policies.data.ManagedLedgerInternalStats;

/**
 * The one owner of a managed ledger's state: its lifecycle {@link Phase}, the last confirmed offset and position,
 * the start offset (first entry not trimmed), the {@link VirtualLedgers}, the metadata record as last stored (with
 * the chain of its writes, {@link ManagedLedgerRecordWriter} does them) and the close in progress. Every change goes through a named
 * transition here; a move the lifecycle does not allow throws {@link IllegalStateException} naming both phases.
 *
 * <p><b>Threading rule (the only lock of a ledger).</b> This object's monitor guards the state above and the
 * fields of the ledger's parts that change together with it ({@link AppendPipeline}'s queues and counters). Only this class (in its
 * transitions and reads, which take the monitor themselves; it is reentrant) and {@link LakestreamManagedLedger}
 * take it; the fields it guards and the methods that need it held are marked {@code @GuardedBy}, which Error Prone
 * checks at compile time. A part that needs a consistent read of several values gets it from one named read here
 * ({@link #readable()}, {@link #trimTarget}) rather than taking the monitor. A cursor's monitor may be taken while
 * holding this one, never the other way round. No callback, future completion or store call runs under it:
 * callbacks run on the ledger's {@link SerialExecutor}. {@link #lastConfirmed()} is also readable without the lock
 * (volatile).
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

    @GuardedBy("this")
    private final VirtualLedgers ledgers;

    @GuardedBy("this")
    private Phase phase;

    @GuardedBy("this")
    private long lceOffset;

    @GuardedBy("this")
    private long startOffset;

    private volatile Position lastConfirmed;

    @GuardedBy("this")
    private ManagedLedgerRecord record;

    @GuardedBy("this")
    private CompletableFuture<Void> recordWrites = CompletableFuture.completedFuture(null);

    @GuardedBy("this")
    private CompletableFuture<Void> closeFuture;

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
    @GuardedBy("this")
    VirtualLedgers ledgersLocked() {
        return ledgers;
    }

    /** The entries not trimmed away, up to the last confirmed one. */
    synchronized long numberOfEntries() {
        return Math.max(0, lceOffset + 1 - startOffset);
    }

    /** The readable range {@code [start, lce]}, read together (empty when {@code lce < start}). */
    record ReadableRange(long start, long lce) {}

    synchronized ReadableRange readable() {
        return new ReadableRange(startOffset, lceOffset);
    }

    /** The offset of {@code p}, or empty when its ledger is not one of this ledger's (never was, or trimmed). */
    synchronized OptionalLong offsetInLedgers(Position p) {
        return ledgers.indexOf(p.getLedgerId()) < 0 ? OptionalLong.empty() : OptionalLong.of(ledgers.offsetOf(p));
    }

    /** The size of the current virtual ledger. */
    synchronized long currentLedgerSize() {
        return ledgers.currentSize();
    }

    /** The virtual ledgers as {@code topics stats-internal} lists them. */
    synchronized List<ManagedLedgerInternalStats.LedgerInfo> ledgersForInternalStats(
            long streamId, boolean includeLedgerMetadata) {
        return LedgerInfos.forInternalStats(ledgers, streamId, includeLedgerMetadata);
    }

    /** Every virtual ledger's info by ledger id, unmodifiable. */
    synchronized NavigableMap<Long, LedgerInfo> ledgerInfos() {
        return LedgerInfos.all(ledgers);
    }

    /** The info of virtual ledger {@code ledgerId}, if it is one of this ledger's. */
    synchronized Optional<LedgerInfo> ledgerInfo(long ledgerId) {
        int i = ledgers.indexOf(ledgerId);
        return i < 0 ? Optional.empty() : Optional.of(LedgerInfos.info(ledgers, i));
    }

    synchronized List<VirtualLedgers.Ledger> ledgerList() {
        return ledgers.ledgers();
    }

    synchronized long ledgerEntries(int i) {
        return ledgers.entries(i);
    }

    synchronized long ledgerSize(int i) {
        return ledgers.size(i);
    }

    /**
     * Retention's plan: the new start offset if the oldest virtual ledgers, wholly below {@code keepFrom}, may go
     * (older than {@code retentionMs} at {@code now}, or beyond {@code retentionBytes}; -1 for no limit), else -1.
     * Only an open or terminated ledger trims.
     */
    synchronized long trimTarget(long keepFrom, long retentionMs, long retentionBytes, long now) {
        if (phase != Phase.OPEN && phase != Phase.TERMINATED) {
            return -1;
        }
        List<VirtualLedgers.Ledger> ls = ledgers.ledgers();
        long total = totalSize();
        long toDelete = 0;
        int remove = 0;
        for (int i = 0; i + 1 < ls.size(); i++) {
            long ledgerEnd = ls.get(i + 1).firstOffset();
            if (ledgerEnd > keepFrom) {
                break;
            }
            boolean overSize = retentionBytes >= 0 && total - toDelete > retentionBytes;
            boolean expired = retentionMs >= 0 && now - ls.get(i).timestamp() > retentionMs;
            if (!overSize && !expired) {
                break;
            }
            toDelete += ls.get(i).size();
            remove = i + 1;
        }
        return remove == 0 ? -1 : ls.get(remove).firstOffset();
    }

    synchronized long offsetOf(Position p) {
        return ledgers.offsetOf(p);
    }

    synchronized Position positionOf(long offset) {
        return ledgers.positionOf(offset);
    }

    /** The average size of the readable entries; 1024 when there are none. */
    synchronized long averageEntrySize() {
        long entries = lceOffset + 1 - startOffset;
        long size = totalSize();
        return entries <= 0 ? 1024 : Math.max(1, size / entries);
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

    // ------------------------------------------------------------------ the metadata record

    /** {@code r} is the record as stored now (at open, and after each write). */
    synchronized void recordStored(ManagedLedgerRecord r) {
        record = r;
    }

    /** A copy of the record as last stored, to change freely. */
    synchronized ManagedLedgerRecord recordCopy() {
        return record.copy();
    }

    /** A copy of the record with {@code change} applied, under this lock (the change may read this state). */
    synchronized ManagedLedgerRecord changedRecord(Consumer<ManagedLedgerRecord> change) {
        ManagedLedgerRecord copy = record.copy();
        change.accept(copy);
        return copy;
    }

    /** The ledger's properties as last stored, as an unmodifiable copy. */
    synchronized Map<String, String> recordProperties() {
        return Collections.unmodifiableMap(new LinkedHashMap<>(record.properties));
    }

    /** Writes the current virtual ledgers into {@code r} (a record about to be written). */
    synchronized void copyLedgersInto(ManagedLedgerRecord r) {
        r.assignLedgers(ledgers);
    }

    /** The record writes, one at a time, go on with {@code next} applied to the chain of those started so far. */
    synchronized void chainRecordWrite(UnaryOperator<CompletableFuture<Void>> next) {
        recordWrites = next.apply(recordWrites);
    }

    /** Completes when the record writes started so far have finished, whatever their outcome. */
    synchronized CompletableFuture<Void> recordWritesSettled() {
        return recordWrites.handle((x, e) -> null);
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

    /** Another owner changed the metadata record: a ledger that may still write (open, write failed) is fenced. */
    synchronized void fenceIfWritable() {
        if (phase == Phase.OPEN || phase == Phase.WRITE_FAILED) {
            fence();
        }
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

    /** The close in progress (or done), null before the first close. */
    synchronized CompletableFuture<Void> closeFuture() {
        return closeFuture;
    }

    /** The close started: {@code f} completes when it is done. */
    synchronized void closeStarted(CompletableFuture<Void> f) {
        closeFuture = f;
    }

    /** The ledger is being deleted (from any phase; deleting twice is allowed). */
    synchronized void delete() {
        phase = Phase.DELETED;
    }

    @GuardedBy("this")
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
