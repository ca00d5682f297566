package dev.lakestream.pulsar.ledger;

import dev.lakestream.pulsar.common.Errors;
import dev.lakestream.pulsar.common.VirtualLedgers;
import dev.lakestream.pulsar.cursor.LakestreamManagedCursor;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.bookkeeper.mledger.ManagedCursor;
import org.apache.bookkeeper.mledger.ManagedLedgerException;
import org.apache.bookkeeper.mledger.Position;
import org.apache.bookkeeper.mledger.PositionFactory;
import org.apache.pulsar.common.api.proto.CommandSubscribe.InitialPosition;
import org.apache.pulsar.common.policies.data.ManagedLedgerInternalStats;

/**
 * The cursors of a managed ledger: durable ones by name (kept in the stream), non-durable ones, and
 * those waiting for entries. Opens, recovers and deletes cursors, and wakes waiting ones when entries land.
 *
 * <p>Takes no lock: the maps are concurrent, and the ledger's state and offsets are read through named reads of
 * {@link LedgerState}. Where a step must see the state lock held (a cursor registering as waiting checks the confirmed
 * tail; a non-durable cursor's start), {@link LakestreamManagedLedger} takes it and calls in here. The wake-ups are
 * called by the write path and the lifecycle holding the lock, so they follow the confirms in order; they run on
 * the ledger's executor.
 */
final class LedgerCursors {

    private final LedgerView ledger;
    private final LedgerState state;

    final Map<String, CompletableFuture<LakestreamManagedCursor>> durable = new ConcurrentHashMap<>();
    final Map<LakestreamManagedCursor, Boolean> nonDurable = new ConcurrentHashMap<>();
    private final Map<LakestreamManagedCursor, Boolean> waiting = new ConcurrentHashMap<>();

    LedgerCursors(LedgerView ledger) {
        this.ledger = ledger;
        this.state = ledger.state();
    }

    // ------------------------------------------------------------------ waiting for entries

    /** Wakes the cursors waiting for entries (an add was confirmed). */
    void notifyWaiting() {
        if (waiting.isEmpty()) {
            return;
        }
        List<LakestreamManagedCursor> ws = new ArrayList<>(waiting.keySet());
        for (LakestreamManagedCursor c : ws) {
            waiting.remove(c);
            ledger.executor().execute(c::notifyEntriesAvailable);
        }
    }

    /** Wakes every waiting cursor (terminate, close): there will be no entries to wait for. */
    void notifyAllWaiting() {
        List<LakestreamManagedCursor> ws = new ArrayList<>(waiting.keySet());
        waiting.clear();
        for (LakestreamManagedCursor c : ws) {
            ledger.executor().execute(c::notifyEntriesAvailable);
        }
    }

    /** Registers {@code c} as waiting for entries; the ledger then checks whether an add landed meanwhile. */
    void addWaiting(LakestreamManagedCursor c) {
        waiting.put(c, Boolean.TRUE);
    }

    /** Wakes {@code c}, which registered as waiting after the entries it waits for landed. */
    void wake(LakestreamManagedCursor c) {
        waiting.remove(c);
        ledger.executor().execute(c::notifyEntriesAvailable);
    }

    void removeWaiting(ManagedCursor cursor) {
        if (cursor instanceof LakestreamManagedCursor c) {
            waiting.remove(c);
        }
    }

    int waitingCount() {
        return waiting.size();
    }

    // ------------------------------------------------------------------ open, recover, delete

    CompletableFuture<LakestreamManagedCursor> open(
            String cursorName,
            InitialPosition initialPosition,
            Map<String, Long> properties,
            Map<String, String> cursorProperties) {
        if (state.isClosedOrDeleted()) {
            return CompletableFuture.failedFuture(new ManagedLedgerException.ManagedLedgerAlreadyClosedException(
                    "managed ledger " + ledger.name() + " is closed"));
        }
        if (ledger.isReadOnly()) {
            return CompletableFuture.failedFuture(Errors.unsupported("openCursor", "the managed ledger is read-only"));
        }
        CompletableFuture<LakestreamManagedCursor> existing = durable.get(cursorName);
        if (existing != null
                && !(existing.isDone()
                        && !existing.isCompletedExceptionally()
                        && existing.join().isClosed())) {
            return existing;
        }
        CompletableFuture<LakestreamManagedCursor> f = new CompletableFuture<>();
        CompletableFuture<LakestreamManagedCursor> raced = existing == null
                ? durable.putIfAbsent(cursorName, f)
                : (durable.replace(cursorName, existing, f) ? null : durable.get(cursorName));
        if (raced != null) {
            return raced;
        }
        boolean reopen = existing != null;
        LedgerState.ReadableRange readable = state.readable();
        long initial = initialPosition == InitialPosition.Earliest ? readable.start() : readable.lce() + 1;
        // the callback completes f either way.
        var unused = ledger.stream()
                .openCursor(cursorName, initial)
                .thenCompose(dc -> {
                    if (reopen) {
                        return CompletableFuture.completedFuture(dc);
                    }
                    // Both changes join the cursor's next write; flush makes it now and completes when it is durable.
                    // the flush below carries this change and reports its outcome.
                    var unusedMarkDelete = dc.markDelete(
                            dc.ackedBefore(), properties == null || properties.isEmpty() ? null : properties);
                    if (cursorProperties != null && !cursorProperties.isEmpty()) {
                        Map<String, String> merged = new LinkedHashMap<>(dc.properties());
                        merged.putAll(cursorProperties);
                        // the flush below carries this change and reports its outcome.
                        var unusedProperties = dc.setProperties(merged);
                    }
                    return dc.flush().thenApply(v -> dc);
                })
                .thenApply(dc -> new LakestreamManagedCursor(ledger.cursorView(), cursorName, dc, true))
                .whenComplete((c, e) -> {
                    if (e != null) {
                        durable.remove(cursorName, f);
                        f.completeExceptionally(e);
                    } else {
                        f.complete(c);
                    }
                });
        return f;
    }

    /** Loads the cursors persisted for the stream (at open). */
    CompletableFuture<Void> recover() {
        return ledger.stream().cursorNames().thenCompose(names -> {
            List<CompletableFuture<?>> all = new ArrayList<>();
            for (String n : names) {
                CompletableFuture<LakestreamManagedCursor> f = ledger.stream()
                        .openCursor(n, 0)
                        .thenApply(dc -> new LakestreamManagedCursor(ledger.cursorView(), n, dc, true));
                durable.put(n, f);
                all.add(f);
            }
            return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new));
        });
    }

    /**
     * Where a non-durable cursor opened at {@code startPosition} starts ({@code ackedBefore}), within the readable
     * entries {@code [startOffset, lceOffset]} of {@code ledgers}; the ledger calls it holding its state lock.
     */
    static long nonDurableStart(
            VirtualLedgers ledgers,
            long startOffset,
            long lceOffset,
            Position lastConfirmed,
            Position startPosition,
            InitialPosition initialPosition) {
        long ackedBefore;
        if (startPosition == null || startPosition.compareTo(lastConfirmed) > 0) {
            ackedBefore = initialPosition == InitialPosition.Earliest ? startOffset : lceOffset + 1;
        } else if (startPosition.getLedgerId() < 0 || startPosition.equals(PositionFactory.EARLIEST)) {
            ackedBefore = startOffset;
        } else {
            ackedBefore = ledgers.offsetOf(startPosition) + 1;
        }
        return Math.max(startOffset, Math.min(ackedBefore, lceOffset + 1));
    }

    /** A non-durable cursor that has acknowledged everything before {@code ackedBefore} (see {@link #nonDurableStart}). */
    LakestreamManagedCursor newNonDurable(String cursorName, long ackedBefore) {
        LakestreamManagedCursor c = new LakestreamManagedCursor(
                ledger.cursorView(), cursorName, ledger.stream().nonDurableCursor(cursorName, ackedBefore), false);
        nonDurable.put(c, Boolean.TRUE);
        return c;
    }

    void removeNonDurable(LakestreamManagedCursor c) {
        nonDurable.remove(c);
        waiting.remove(c);
    }

    CompletableFuture<Void> delete(String cursorName) {
        CompletableFuture<LakestreamManagedCursor> f = durable.remove(cursorName);
        if (f == null) {
            for (LakestreamManagedCursor c : nonDurable.keySet()) {
                if (c.getName().equals(cursorName)) {
                    c.markClosed();
                    removeNonDurable(c);
                    return CompletableFuture.completedFuture(null);
                }
            }
            return CompletableFuture.failedFuture(new ManagedLedgerException.CursorNotFoundException(
                    "cursor " + cursorName + " not found on " + ledger.name()));
        }
        return f.handle((c, e) -> {
                    if (c != null) {
                        c.markClosed();
                        waiting.remove(c);
                    }
                    return null;
                })
                .thenCompose(v -> ledger.stream().deleteCursor(cursorName))
                .thenApply(deleted -> null);
    }

    // ------------------------------------------------------------------ views

    /** The durable cursors opened so far (not those still opening or failed to open). */
    List<LakestreamManagedCursor> durableCursors() {
        List<LakestreamManagedCursor> out = new ArrayList<>();
        for (CompletableFuture<LakestreamManagedCursor> f : durable.values()) {
            if (f.isDone() && !f.isCompletedExceptionally()) {
                out.add(f.join());
            }
        }
        return out;
    }

    List<LakestreamManagedCursor> allCursors() {
        List<LakestreamManagedCursor> out = durableCursors();
        out.addAll(nonDurable.keySet());
        return out;
    }

    /** Closes every cursor; a cursor that fails to close does not hold up the others. */
    CompletableFuture<Void> closeAll() {
        List<CompletableFuture<?>> fs = new ArrayList<>();
        for (LakestreamManagedCursor c : allCursors()) {
            fs.add(c.closeAsync().exceptionally(e -> null));
        }
        return CompletableFuture.allOf(fs.toArray(CompletableFuture[]::new));
    }

    /** Each cursor's internal stats by name, as {@code topics stats-internal} reports them. */
    Map<String, ManagedLedgerInternalStats.CursorStats> internalStats() {
        Map<String, ManagedLedgerInternalStats.CursorStats> out = new LinkedHashMap<>();
        for (LakestreamManagedCursor c : allCursors()) {
            out.put(c.getName(), c.getCursorStats());
        }
        return out;
    }

    List<ManagedCursor> activeCursors() {
        List<ManagedCursor> out = new ArrayList<>();
        for (LakestreamManagedCursor c : allCursors()) {
            if (c.isActive()) {
                out.add(c);
            }
        }
        return out;
    }

    LakestreamManagedCursor slowestConsumer() {
        LakestreamManagedCursor slowest = null;
        for (LakestreamManagedCursor c : durableCursors()) {
            if (slowest == null || c.ackedBefore() < slowest.ackedBefore()) {
                slowest = c;
            }
        }
        return slowest;
    }

    /** The lowest offset any cursor has not acknowledged; past the last entry when there is no cursor. */
    long slowestAckedBefore(boolean includeNonDurable) {
        long min = Long.MAX_VALUE;
        for (LakestreamManagedCursor c : includeNonDurable ? allCursors() : durableCursors()) {
            min = Math.min(min, c.ackedBefore());
        }
        if (min == Long.MAX_VALUE) {
            return state.lceOffset() + 1;
        }
        return min;
    }
}
