package dev.lakestream.pulsar.ledger;

import dev.lakestream.pulsar.common.Callbacks;
import java.util.concurrent.CompletableFuture;
import org.apache.bookkeeper.mledger.AsyncCallbacks.TerminateCallback;
import org.apache.bookkeeper.mledger.ManagedLedgerException;
import org.apache.bookkeeper.mledger.Position;

/**
 * The end of a managed ledger's life: terminate (no adds after the last confirmed one, which is
 * persisted in the record), close (adds drained, cursors closed, writes settled, fence released, evicted from the
 * factory) and delete (close, then the storage).
 *
 * <p>State changes happen under the ledger's state monitor, as do the queued adds they fail; callbacks run on the
 * ledger's executor.
 */
final class LedgerLifecycle {

    private final LedgerView ledger;
    private final LedgerState state;
    private final AppendPipeline appends;
    private final ManagedLedgerRecordWriter recordWriter;

    // --- guarded by state (see LedgerState)
    private CompletableFuture<Void> closeFuture;

    LedgerLifecycle(LedgerView ledger, AppendPipeline appends, ManagedLedgerRecordWriter recordWriter) {
        this.ledger = ledger;
        this.state = ledger.state();
        this.appends = appends;
        this.recordWriter = recordWriter;
    }

    void terminate(TerminateCallback cb, Object ctx) {
        synchronized (state) {
            if (state.is(LedgerState.Phase.TERMINATED)) {
                Position p = state.lastConfirmed();
                ledger.executor().execute(() -> cb.terminateComplete(p, ctx));
                return;
            }
            ManagedLedgerException refused = ledger.writeRefusalLocked();
            if (refused != null) {
                ledger.executor().execute(() -> cb.terminateFailed(refused, ctx));
                return;
            }
            state.terminate();
            appends.failUnsentLocked(() -> new ManagedLedgerException.ManagedLedgerTerminatedException(
                    "managed ledger " + ledger.name() + " was terminated"));
            Runnable persist = () -> {
                long last;
                synchronized (state) {
                    last = state.lceOffset();
                }
                Callbacks.deliver(
                        ledger.updateRecord(r -> r.terminatedOffset = last),
                        ledger.executor(),
                        v -> cb.terminateComplete(state.lastConfirmed(), ctx),
                        e -> cb.terminateFailed(e, ctx));
                synchronized (state) {
                    ledger.cursors().notifyAllWaitingLocked();
                }
            };
            if (!appends.hasInflightLocked()) {
                ledger.executor().execute(persist);
            } else {
                appends.onDrainedLocked(persist);
            }
        }
    }

    CompletableFuture<Void> close() {
        CompletableFuture<Void> drained = new CompletableFuture<>();
        synchronized (state) {
            if (closeFuture != null) {
                return closeFuture;
            }
            state.close();
            appends.failUnsentLocked(() -> new ManagedLedgerException.ManagedLedgerAlreadyClosedException(
                    "managed ledger " + ledger.name() + " was closed"));
            if (!appends.hasInflightLocked()) {
                drained.complete(null);
            } else {
                appends.onDrainedLocked(() -> drained.complete(null));
            }
            ledger.cursors().notifyAllWaitingLocked();
            // Also wait for the appends of failed adds the stream has not answered yet: a ledger opened again
            // after this close (the next owner, here or elsewhere) then finds at its end every entry that will ever
            // land, and rebuilds its state (deduplication, next offset) from them.
            CompletableFuture<Void> settled = appends.appendsSettledLocked();
            closeFuture = drained.thenCompose(v -> settled)
                    .thenCompose(v -> ledger.cursors().closeAll())
                    .thenCompose(v -> recordWriter.settled())
                    .thenRun(() -> {
                        if (!ledger.isReadOnly()) {
                            ledger.stream().releaseFence();
                        }
                        ledger.evictFromFactory();
                    });
            return closeFuture;
        }
    }

    CompletableFuture<Void> delete() {
        synchronized (state) {
            state.delete();
        }
        return close().thenCompose(v -> ledger.services()
                .deleteStorage()
                .delete(ledger.name(), ledger.stream().id()));
    }
}
