package dev.lakestream.pulsar.cursor;

import dev.lakestream.core.log.LogEntry;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.apache.bookkeeper.mledger.Entry;
import org.apache.bookkeeper.mledger.ManagedLedger;
import org.apache.bookkeeper.mledger.ManagedLedgerConfig;
import org.apache.bookkeeper.mledger.ManagedLedgerException;
import org.apache.bookkeeper.mledger.Position;

/**
 * What a {@link LakestreamManagedCursor} needs of its managed ledger, and all it may use: the readable range and the
 * position ↔ offset mapping, raw reads, the ledger's serial callback executor, the cursor registry and the read
 * statistics. The ledger hands its cursors this view, never itself, so the cursor logic can be tested without stores.
 *
 * <p>Threading: every method may be called from any thread, holding no ledger lock. A cursor must not hold its own
 * monitor while calling in (the ledger takes its state monitor, then a cursor's, when it wakes waiting readers).
 */
public interface CursorLedger {

    /** The managed ledger's name, for messages. */
    String getName();

    /** The managed ledger as Pulsar sees it ({@code ManagedCursor.getManagedLedger()}). */
    ManagedLedger managedLedger();

    ManagedLedgerConfig getConfig();

    /** The serial executor every callback of the ledger and its cursors runs on, in order. */
    Executor executor();

    /** Runs {@code task} on {@link #executor()} after {@code delay}. */
    void schedule(Runnable task, long delay, TimeUnit unit);

    // ------------------------------------------------------------------ the readable range

    /** The offset of the last confirmed entry; below {@link #startOffset()} when there is none. */
    long lceOffset();

    /** The offset of the first entry not trimmed away. */
    long startOffset();

    long offsetOf(Position position);

    Position positionOf(long offset);

    Position getLastConfirmedEntry();

    Position getFirstPosition();

    boolean isTerminated();

    boolean isClosedOrDeleted();

    /** The average stored entry size in bytes (for size caps and backlog estimates). */
    long averageEntrySize();

    // ------------------------------------------------------------------ reads

    /** Up to {@code maxEntries} raw entries from {@code from}; the caller owns (releases) their payloads. */
    CompletableFuture<List<LogEntry>> readRaw(long from, int maxEntries, long maxBytes);

    /** A Pulsar entry for a raw one (takes over its payload). */
    Entry toEntry(LogEntry entry);

    /** The entry at {@code offset}, or a failure naming it when it is not readable. */
    CompletableFuture<Entry> readOne(long offset);

    // ------------------------------------------------------------------ the cursor registry

    /** {@code cursor} waits for entries past the confirmed tail; the ledger wakes it when some are added. */
    void addWaiting(LakestreamManagedCursor cursor);

    void removeWaiting(LakestreamManagedCursor cursor);

    /** A non-durable {@code cursor} closed. */
    void removeNonDurable(LakestreamManagedCursor cursor);

    /** A new non-durable cursor of the same ledger, mark-deleted up to {@code markDelete}. */
    LakestreamManagedCursor newNonDurableCursor(Position markDelete, String name) throws ManagedLedgerException;

    // ------------------------------------------------------------------ statistics

    void recordMarkDelete();

    void recordRead(int entries, long bytes);

    void recordReadError();
}
