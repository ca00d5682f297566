package dev.lakestream.pulsar.ledger;

import dev.lakestream.core.log.LogEntry;
import dev.lakestream.pulsar.cursor.CursorLedger;
import dev.lakestream.pulsar.cursor.LakestreamManagedCursor;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.apache.bookkeeper.mledger.Entry;
import org.apache.bookkeeper.mledger.ManagedLedger;
import org.apache.bookkeeper.mledger.ManagedLedgerConfig;
import org.apache.bookkeeper.mledger.ManagedLedgerException;
import org.apache.bookkeeper.mledger.Position;

/** The narrow view of a {@link LakestreamManagedLedger} its cursors get: each member delegates to the ledger. */
final class LedgerCursorView implements CursorLedger {

    private final LakestreamManagedLedger ledger;

    LedgerCursorView(LakestreamManagedLedger ledger) {
        this.ledger = ledger;
    }

    @Override
    public String getName() {
        return ledger.getName();
    }

    @Override
    public ManagedLedger managedLedger() {
        return ledger;
    }

    @Override
    public ManagedLedgerConfig getConfig() {
        return ledger.getConfig();
    }

    @Override
    public Executor executor() {
        return ledger.executor();
    }

    @Override
    public void schedule(Runnable task, long delay, TimeUnit unit) {
        // a timer: it only hands the task to the ledger's executor; the task reports its own outcome.
        var unused =
                ledger.services().scheduler().schedule(() -> ledger.executor().execute(task), delay, unit);
    }

    @Override
    public long lceOffset() {
        return ledger.lceOffset();
    }

    @Override
    public long startOffset() {
        return ledger.startOffset();
    }

    @Override
    public long offsetOf(Position position) {
        return ledger.offsetOf(position);
    }

    @Override
    public Position positionOf(long offset) {
        return ledger.positionOf(offset);
    }

    @Override
    public Position getLastConfirmedEntry() {
        return ledger.getLastConfirmedEntry();
    }

    @Override
    public Position getFirstPosition() {
        return ledger.getFirstPosition();
    }

    @Override
    public boolean isTerminated() {
        return ledger.isTerminated();
    }

    @Override
    public boolean isClosedOrDeleted() {
        return ledger.isClosedOrDeleted();
    }

    @Override
    public long averageEntrySize() {
        return ledger.averageEntrySize();
    }

    @Override
    public CompletableFuture<List<LogEntry>> readRaw(long from, int maxEntries, long maxBytes) {
        return ledger.readRaw(from, maxEntries, maxBytes);
    }

    @Override
    public Entry toEntry(LogEntry entry) {
        return ledger.toEntry(entry);
    }

    @Override
    public CompletableFuture<Entry> readOne(long offset) {
        return ledger.readOne(offset);
    }

    @Override
    public void addWaiting(LakestreamManagedCursor cursor) {
        ledger.addWaiting(cursor);
    }

    @Override
    public void removeWaiting(LakestreamManagedCursor cursor) {
        ledger.cursors().removeWaiting(cursor);
    }

    @Override
    public void removeNonDurable(LakestreamManagedCursor cursor) {
        ledger.cursors().removeNonDurable(cursor);
    }

    @Override
    public LakestreamManagedCursor newNonDurableCursor(Position markDelete, String name) throws ManagedLedgerException {
        return (LakestreamManagedCursor) ledger.newNonDurableCursor(markDelete, name);
    }

    @Override
    public void recordMarkDelete() {
        ledger.mbean().addMarkDeleteOp();
    }

    @Override
    public void recordRead(int entries, long bytes) {
        ledger.mbean().recordRead(entries, bytes);
    }

    @Override
    public void recordReadError() {
        ledger.mbean().recordReadEntriesError();
    }
}
