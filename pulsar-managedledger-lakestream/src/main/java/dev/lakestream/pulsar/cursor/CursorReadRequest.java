package dev.lakestream.pulsar.cursor;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.apache.bookkeeper.mledger.AsyncCallbacks.ReadEntriesCallback;
import org.apache.bookkeeper.mledger.Entry;
import org.apache.bookkeeper.mledger.ManagedLedgerException;
import org.apache.bookkeeper.mledger.Position;

/**
 * One read asked of a cursor: its limits (entries, bytes, last position), the skip condition, whether it waits for
 * entries, and the entries gathered so far, which it owns until it hands them to the callback. It completes once,
 * on the ledger's executor; failing releases what it gathered.
 */
final class CursorReadRequest {

    private final CursorOwner cursor;
    private final CursorLedger ml;
    private final int count;
    private final long maxBytes;
    private final ReadEntriesCallback cb;
    private final Object ctx;
    private final long maxOffset;
    private final Predicate<Position> skip;
    private final boolean wait;
    // touched only by the request's current read round (its rounds run one after another)
    private final List<Entry> entries = new ArrayList<>();
    private long bytes;
    private boolean completed; // guarded by this

    CursorReadRequest(
            CursorOwner cursor,
            CursorLedger ml,
            int count,
            long maxBytes,
            ReadEntriesCallback cb,
            Object ctx,
            Position maxPosition,
            Predicate<Position> skip,
            boolean wait) {
        this.cursor = cursor;
        this.ml = ml;
        this.count = Math.max(1, count);
        this.maxBytes = maxBytes <= 0 ? Long.MAX_VALUE : maxBytes;
        this.cb = cb;
        this.ctx = ctx;
        this.maxOffset = maxPosition == null ? Long.MAX_VALUE : ml.offsetOf(maxPosition);
        this.skip = skip;
        this.wait = wait;
    }

    /** Whether it waits for entries when there are none ("or wait"). */
    boolean waits() {
        return wait;
    }

    long maxOffset() {
        return maxOffset;
    }

    boolean hasEntries() {
        return !entries.isEmpty();
    }

    boolean isFull() {
        return entries.size() >= count || bytes >= maxBytes;
    }

    int entriesWanted() {
        return count - entries.size();
    }

    long bytesWanted() {
        return maxBytes - bytes;
    }

    /** Whether the skip condition drops the entry at {@code position}. */
    boolean skips(Position position) {
        return skip != null && skip.test(position);
    }

    void add(Entry entry) {
        bytes += entry.getLength();
        entries.add(entry);
    }

    void complete() {
        synchronized (this) {
            if (completed) {
                return;
            }
            completed = true;
        }
        ml.recordRead(entries.size(), bytes);
        cursor.countConsumed(entries.size());
        List<Entry> result = entries;
        ml.executor().execute(() -> cb.readEntriesComplete(result, ctx));
    }

    void fail(ManagedLedgerException e) {
        synchronized (this) {
            if (completed) {
                return;
            }
            completed = true;
        }
        entries.forEach(Entry::release);
        ml.recordReadError();
        ml.executor().execute(() -> cb.readEntriesFailed(e, ctx));
    }
}
