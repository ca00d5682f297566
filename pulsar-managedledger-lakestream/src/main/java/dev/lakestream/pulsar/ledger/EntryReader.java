package dev.lakestream.pulsar.ledger;

import dev.lakestream.core.log.LogEntry;
import dev.lakestream.pulsar.common.Callbacks;
import dev.lakestream.pulsar.cursor.Search;
import io.netty.buffer.ByteBuf;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;
import org.apache.bookkeeper.mledger.AsyncCallbacks.ReadEntryCallback;
import org.apache.bookkeeper.mledger.Entry;
import org.apache.bookkeeper.mledger.ManagedLedgerException;
import org.apache.bookkeeper.mledger.Position;
import org.apache.bookkeeper.mledger.impl.EntryImpl;

/**
 * Reads a managed ledger's entries from its stream: single entries by offset or position, and the
 * searches that read entries (earliest publish time in the backlog, find, last dispatchable position). Entries are
 * Pulsar {@link Entry} objects at their virtual-ledger positions; the reader of an entry releases it.
 *
 * <p>Takes no lock: the readable range and a position's offset are each one named read of {@link LedgerState}; stream
 * reads and callbacks run without the lock, callbacks on the ledger's executor.
 */
final class EntryReader {

    private final LedgerView ledger;
    private final LedgerState state;

    EntryReader(LedgerView ledger) {
        this.ledger = ledger;
        this.state = ledger.state();
    }

    /** Reads raw entries; Entry objects are made by the caller with {@link #toEntry}. */
    CompletableFuture<List<LogEntry>> readRaw(long from, int maxEntries, long maxBytes) {
        return ledger.stream().read(from, maxEntries, maxBytes);
    }

    Entry toEntry(LogEntry e) {
        Position p = state.positionOf(e.offset());
        if (e.voided()) {
            ByteBuf marker = VoidEntries.marker(e);
            EntryImpl entry = EntryImpl.create(p.getLedgerId(), p.getEntryId(), marker);
            marker.release();
            return entry;
        }
        EntryImpl entry = EntryImpl.create(p.getLedgerId(), p.getEntryId(), e.payload());
        e.payload().release();
        return entry;
    }

    /** The entry at {@code offset}, or a failure naming it when it is not readable. */
    CompletableFuture<Entry> readOne(long offset) {
        LedgerState.ReadableRange readable = state.readable();
        long lce = readable.lce();
        long start = readable.start();
        String name = ledger.name();
        if (offset < start || offset > lce) {
            return CompletableFuture.failedFuture(new ManagedLedgerException.NonRecoverableLedgerException(
                    "Message not found: position " + state.positionOf(offset) + " of " + name + " is outside the"
                            + " readable entries " + state.positionOf(start) + ".." + state.positionOf(lce)));
        }
        return readRaw(offset, 1, Long.MAX_VALUE).thenApply(list -> {
            Entry found = null;
            for (LogEntry e : list) {
                if (e.offset() == offset && found == null) {
                    found = toEntry(e);
                } else {
                    e.payload().release();
                }
            }
            if (found == null) {
                throw new java.util.concurrent.CompletionException(
                        new ManagedLedgerException.NonRecoverableLedgerException("Message not found: position "
                                + state.positionOf(offset) + " of " + name + " was trimmed"));
            }
            ledger.mbean().recordRead(1, found.getLength());
            return found;
        });
    }

    void readEntry(Position position, ReadEntryCallback cb, Object ctx) {
        OptionalLong offset = state.offsetInLedgers(position);
        if (offset.isEmpty()) {
            ledger.executor()
                    .execute(() -> cb.readEntryFailed(
                            new ManagedLedgerException.NonRecoverableLedgerException("Message not found, the ledgerId "
                                    + position.getLedgerId() + " does not belong to this topic or has been deleted"),
                            ctx));
            return;
        }
        Callbacks.deliver(
                readOne(offset.getAsLong()),
                ledger.executor(),
                entry -> cb.readEntryComplete(entry, ctx),
                e -> cb.readEntryFailed(e, ctx));
    }

    // ------------------------------------------------------------------ searches

    /** The publish time of the oldest entry a durable cursor has not acknowledged, or -1. */
    CompletableFuture<Long> earliestPublishTimeInBacklog() {
        long from = Math.max(ledger.cursors().slowestAckedBefore(false), state.startOffset());
        if (from > state.lceOffset()) {
            return CompletableFuture.completedFuture(-1L);
        }
        return readOne(from).handle((entry, e) -> {
            if (e != null) {
                return -1L;
            }
            try {
                return org.apache.pulsar.common.protocol.Commands.parseMessageMetadata(entry.getDataBuffer())
                        .getPublishTime();
            } catch (Throwable t) {
                return -1L;
            } finally {
                entry.release();
            }
        });
    }

    CompletableFuture<Position> findPosition(Predicate<Entry> predicate) {
        long lo = state.startOffset();
        long hi = state.lceOffset();
        return Search.newestMatching(this::readOne, predicate, lo, hi)
                .thenApply(found -> found < 0 ? state.positionOf(lo) : state.positionOf(found + 1));
    }

    CompletableFuture<Position> lastDispatchablePosition(Predicate<Entry> predicate, Position startPosition) {
        long from = Math.min(state.offsetOf(startPosition), state.lceOffset());
        long floor = state.startOffset();
        return scanBack(predicate, from, floor, 100_000);
    }

    private CompletableFuture<Position> scanBack(Predicate<Entry> predicate, long offset, long floor, int budget) {
        if (offset < floor || budget <= 0) {
            return CompletableFuture.completedFuture(state.positionOf(floor - 1));
        }
        return readOne(offset).thenCompose(entry -> {
            boolean ok;
            try {
                ok = predicate.test(entry);
            } finally {
                entry.release();
            }
            return ok
                    ? CompletableFuture.completedFuture(state.positionOf(offset))
                    : scanBack(predicate, offset - 1, floor, budget - 1);
        });
    }
}
