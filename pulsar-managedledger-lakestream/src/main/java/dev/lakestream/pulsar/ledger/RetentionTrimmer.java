package dev.lakestream.pulsar.ledger;

import dev.lakestream.pulsar.common.Errors;
import dev.lakestream.pulsar.common.VirtualLedgers;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.bookkeeper.mledger.ManagedLedgerConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Retention for a managed ledger: removes the oldest virtual ledgers that every cursor has consumed
 * and that retention (time or size) no longer keeps, first from the metadata record, then from the stream. Nothing
 * at or above the stream's lowest retention hold goes (the Iceberg materializer's: what its table does not hold
 * yet; {@code dev.lakestream.core.trim.RetentionHolds}).
 *
 * <p>One trim runs at a time ({@link #trimming}); a request made meanwhile runs after it. The plan and the trim are
 * named read and transition of {@link LedgerState} ({@link LedgerState#trimTarget}, {@link LedgerState#trimBelow}),
 * which take its lock; this class takes none.
 */
final class RetentionTrimmer {

    // The ledger's logger, so log configuration for the ledger still covers its retention.
    private static final Logger LOG = LoggerFactory.getLogger(LedgerView.LOGGER);

    private final LedgerView ledger;
    private final LedgerState state;
    private final AtomicReference<CompletableFuture<Void>> trimming = new AtomicReference<>();

    RetentionTrimmer(LedgerView ledger) {
        this.ledger = ledger;
        this.state = ledger.state();
    }

    void trimConsumedLedgersInBackground(CompletableFuture<?> promise) {
        @SuppressWarnings("unchecked")
        CompletableFuture<Object> p = (CompletableFuture<Object>) promise;
        if (ledger.isReadOnly()) {
            p.complete(null);
            return;
        }
        CompletableFuture<Void> mine = new CompletableFuture<>();
        while (!trimming.compareAndSet(null, mine)) {
            // The running trim may end between the failed swap and this read: then try the swap again.
            CompletableFuture<Void> running = trimming.get();
            if (running != null) {
                // only a signal that the running trim ended, whatever its outcome: then try again.
                var unused = running.whenComplete((v, e) -> trimConsumedLedgersInBackground(promise));
                return;
            }
        }
        CompletableFuture<Void> run;
        try {
            run = trimOnce();
        } catch (Throwable t) {
            run = CompletableFuture.failedFuture(t);
        }
        // the callback handles both outcomes and completes the promise.
        var unused = run.whenComplete((v, e) -> {
            trimming.set(null);
            mine.complete(null);
            if (e != null) {
                LOG.warn("[{}] trimming consumed ledgers failed", ledger.name(), e);
                p.completeExceptionally(Errors.toMl(e));
            } else {
                p.complete(null);
            }
        });
    }

    private CompletableFuture<Void> trimOnce() {
        long slowest = ledger.cursors().slowestAckedBefore(true);
        long planned = plan(slowest);
        if (planned < 0) {
            return CompletableFuture.completedFuture(null);
        }
        // Only when something would go: a retention hold (the Iceberg materializer's) may keep more.
        return ledger.stream().retentionFloor().thenCompose(floor -> {
            long target = floor.isPresent() && floor.getAsLong() < slowest ? plan(floor.getAsLong()) : planned;
            if (target < 0) {
                return CompletableFuture.completedFuture(null);
            }
            return trimTo(target);
        });
    }

    /**
     * The new start offset if virtual ledgers wholly below {@code keepFrom} may go by retention, else -1.
     */
    private long plan(long keepFrom) {
        ManagedLedgerConfig config = ledger.config();
        long retentionBytes = config.getRetentionSizeInMB() < 0 ? -1 : config.getRetentionSizeInMB() * LedgerView.MB;
        return state.trimTarget(keepFrom, config.getRetentionTimeMillis(), retentionBytes, ledger.now());
    }

    private CompletableFuture<Void> trimTo(long target) {
        return ledger.updateRecord(r -> {
                    VirtualLedgers copy = new VirtualLedgers(r.toLedgers(), 0);
                    copy.removeBelow(target);
                    r.assignLedgers(copy);
                })
                .thenCompose(v -> {
                    state.trimBelow(target);
                    return ledger.stream().trim(target);
                });
    }
}
