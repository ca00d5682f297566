package dev.lakestream.pulsar.ledger;

import dev.lakestream.pulsar.common.Callbacks;
import java.util.concurrent.CompletableFuture;
import org.apache.bookkeeper.mledger.AsyncCallbacks.TerminateCallback;

/**
 * The end of a managed ledger's life: terminate (no adds after the last confirmed one, which is persisted in the
 * record), close (adds drained, cursors closed, writes settled, fence released, evicted from the factory) and delete
 * (close, then the storage).
 *
 * <p>Takes no lock: {@link LakestreamManagedLedger} makes the state change and fails the queued adds holding the state
 * lock, then hands over here what follows (the persisting of a termination, the rest of a close); callbacks run on the
 * ledger's executor.
 */
final class LedgerLifecycle {

    private final LedgerView ledger;
    private final LedgerState state;
    private final ManagedLedgerRecordWriter recordWriter;

    LedgerLifecycle(LedgerView ledger, ManagedLedgerRecordWriter recordWriter) {
        this.ledger = ledger;
        this.state = ledger.state();
        this.recordWriter = recordWriter;
    }

    /**
     * What a termination does once the adds in flight have completed: persist the last confirmed offset as the
     * record's terminated offset, answer {@code cb}, and wake the waiting cursors (there will be no entries to wait
     * for).
     */
    Runnable persistTermination(TerminateCallback cb, Object ctx) {
        return () -> {
            long last = state.lceOffset();
            Callbacks.deliver(
                    ledger.updateRecord(r -> r.terminatedOffset = last),
                    ledger.executor(),
                    v -> cb.terminateComplete(state.lastConfirmed(), ctx),
                    e -> cb.terminateFailed(e, ctx));
            ledger.wakeAllWaiting();
        };
    }

    /**
     * The rest of a close, once the adds in flight have completed ({@code drained}) and the stream has answered every
     * append ({@code settled}): the cursors close, the record writes settle, the fence is released and the ledger
     * leaves the factory.
     */
    CompletableFuture<Void> finishClose(CompletableFuture<Void> drained, CompletableFuture<Void> settled) {
        return drained.thenCompose(v -> settled)
                .thenCompose(v -> ledger.cursors().closeAll())
                .thenCompose(v -> recordWriter.settled())
                .thenRun(() -> {
                    if (!ledger.isReadOnly()) {
                        ledger.stream().releaseFence();
                    }
                    ledger.evictFromFactory();
                });
    }

    /** Deletes the ledger's storage (once it is closed). */
    CompletableFuture<Void> deleteStorage() {
        return ledger.services()
                .deleteStorage()
                .delete(ledger.name(), ledger.stream().id());
    }
}
