package dev.lakestream.pulsar;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.bookkeeper.mledger.ManagedLedgerConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Retention for a {@link LakestreamManagedLedger}: removes the oldest virtual ledgers that every cursor has consumed
 * and that retention (time or size) no longer keeps, first from the metadata record, then from the stream.
 *
 * <p>One trim runs at a time ({@link #trimming}); a request made meanwhile runs after it. The ledger's state is read
 * and changed under the ledger's monitor.
 */
final class RetentionTrimmer {

    // The ledger's logger, so log configuration for the ledger still covers its retention.
    private static final Logger LOG = LoggerFactory.getLogger(LakestreamManagedLedger.class);

    private final LakestreamManagedLedger ledger;
    private final AtomicReference<CompletableFuture<Void>> trimming = new AtomicReference<>();

    RetentionTrimmer(LakestreamManagedLedger ledger) {
        this.ledger = ledger;
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
                running.whenComplete((v, e) -> trimConsumedLedgersInBackground(promise));
                return;
            }
        }
        CompletableFuture<Void> run;
        try {
            run = trimOnce();
        } catch (Throwable t) {
            run = CompletableFuture.failedFuture(t);
        }
        run.whenComplete((v, e) -> {
            trimming.set(null);
            mine.complete(null);
            if (e != null) {
                LOG.warn("[{}] trimming consumed ledgers failed", ledger.getName(), e);
                p.completeExceptionally(Errors.toMl(e));
            } else {
                p.complete(null);
            }
        });
    }

    private CompletableFuture<Void> trimOnce() {
        long slowest = ledger.cursors.slowestAckedBefore(true);
        long newStart;
        int remove = 0;
        synchronized (ledger) {
            if (ledger.state != LakestreamManagedLedger.State.OPEN
                    && ledger.state != LakestreamManagedLedger.State.TERMINATED) {
                return CompletableFuture.completedFuture(null);
            }
            List<VirtualLedgers.Ledger> ls = ledger.ledgers.ledgers();
            ManagedLedgerConfig config = ledger.getConfig();
            long retentionMs = config.getRetentionTimeMillis();
            long retentionBytes = config.getRetentionSizeInMB() < 0 ? -1
                    : config.getRetentionSizeInMB() * LakestreamManagedLedger.MB;
            long total = ledger.totalSizeLocked();
            long toDelete = 0;
            long t = ledger.now();
            for (int i = 0; i + 1 < ls.size(); i++) {
                long ledgerEnd = ls.get(i + 1).firstOffset();
                if (ledgerEnd > slowest) {
                    break;
                }
                boolean overSize = retentionBytes >= 0 && total - toDelete > retentionBytes;
                boolean expired = retentionMs >= 0 && t - ls.get(i).timestamp() > retentionMs;
                if (!overSize && !expired) {
                    break;
                }
                toDelete += ls.get(i).size();
                remove = i + 1;
            }
            if (remove == 0) {
                return CompletableFuture.completedFuture(null);
            }
            newStart = ls.get(remove).firstOffset();
        }
        long target = newStart;
        return ledger.updateRecord(r -> {
            VirtualLedgers copy = new VirtualLedgers(r.toLedgers(), 0);
            copy.removeBelow(target);
            r.assignLedgers(copy);
        }).thenCompose(v -> {
            synchronized (ledger) {
                ledger.ledgers.removeBelow(target);
                ledger.startOffset = Math.max(ledger.startOffset, target);
            }
            return ledger.stream.trim(target);
        });
    }
}
