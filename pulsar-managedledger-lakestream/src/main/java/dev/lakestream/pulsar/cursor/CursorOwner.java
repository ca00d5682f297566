package dev.lakestream.pulsar.cursor;

import org.apache.bookkeeper.mledger.ManagedLedgerException;
import org.apache.bookkeeper.mledger.Position;

/**
 * The narrow view of a cursor its parts ({@link CursorAcks}, {@link CursorReader}, {@link CursorReadRequest},
 * {@link CursorRepositioning}, {@link CursorScan}, {@link CursorReplay}, {@link CursorInternalStats}) get: the few
 * members they use of the cursor that owns them, so no part refers back to the cursor class. Implemented by a private
 * class inside the cursor.
 */
interface CursorOwner {

    /** The cursor's monitor: the lock that guards its read position, batch acks and counters. */
    Object monitor();

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
}
