package dev.lakestream.pulsar.cursor;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.bookkeeper.mledger.ManagedLedgerException;
import org.apache.bookkeeper.mledger.Position;

/**
 * The narrow view of a cursor its parts ({@link CursorAcks}, {@link CursorReader}, {@link CursorReadRequest},
 * {@link CursorRepositioning}, {@link CursorScan}, {@link CursorReplay}, {@link CursorInternalStats}) get: the few
 * members they use of the cursor that owns them, so no part refers back to the cursor class. Implemented by a private
 * class inside the cursor.
 */
interface CursorOwner {

    String name();

    boolean isClosed();

    /** The error for an operation on a closed cursor, naming it. */
    ManagedLedgerException closedException();

    /** The in-memory read position as an offset; takes the monitor. */
    long readOffset();

    /** Counts entries handed to the consumer (internal stats). */
    void countConsumed(int entries);

    long messagesConsumed();

    boolean isMessageDeleted(Position position);

    Position readPosition();

    Position markDeletedPosition();

    boolean isActive();

    long entriesSinceFirstNotAcked();

    /** Registers the cursor with its ledger as waiting for entries (its parked read resumes when they land). */
    void waitForEntries();

    /** Takes the cursor off its ledger's waiting list. */
    void stopWaitingForEntries();

    // --- steps that need the cursor's monitor: the cursor takes it for the step (calling a part's ...Locked method
    // or moving its read position) and lets it go; no part takes it.

    /** Fails {@code op} when the cursor is closed; true then. */
    boolean failIfClosed(CursorReadRequest op);

    /**
     * A read round begins: fails {@code op} and answers -1 when the cursor is closed; else raises the read position to
     * {@code start} and answers its epoch (for {@link #readUpTo}).
     */
    long beginRead(CursorReadRequest op, long start);

    /** A read round started at {@code epoch} read up to {@code next} (exclusive): the read position follows. */
    void readUpTo(long next, long epoch);

    /** Whether the entry at {@code off} is acknowledged whole ({@link CursorAcks#isAckedLocked}). */
    boolean isAcked(long off);

    /** The first offset at or after {@code offset} not acknowledged ({@link CursorAcks#firstUnackedFromLocked}). */
    long firstUnackedFrom(long offset);

    /** {@link CursorAcks#keepPartlyAckedBatchLocked}. */
    void keepPartlyAckedBatch(long off, long[] ackSet, Position position);

    /** {@link CursorAcks#markDeleteToLocked}. */
    CursorAcks.MarkDeleteStep markDeleteTo(long off, Position position, Map<String, Long> properties);

    /** {@link CursorAcks#ackEachLocked}. */
    CompletableFuture<Void> ackEach(List<long[]> offs, List<long[]> sets, long lce);

    /** {@link CursorRepositioning#resetToLocked}. */
    CompletableFuture<Void> resetTo(long off);

    /** The counters of the internal stats, read together. */
    record Counters(long messagesConsumed, boolean closed) {}

    Counters counters();
}
