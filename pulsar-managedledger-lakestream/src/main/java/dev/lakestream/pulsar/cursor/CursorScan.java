package dev.lakestream.pulsar.cursor;

import dev.lakestream.core.log.LogEntry;
import dev.lakestream.pulsar.common.Errors;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.apache.bookkeeper.mledger.Entry;
import org.apache.bookkeeper.mledger.ScanOutcome;

/**
 * One {@code scan} of a cursor's backlog: reads the unacknowledged entries from a start offset in batches and hands
 * each to {@code condition}, which must not keep it (the scan releases it, as Pulsar's does). Stops with
 * {@code USER_INTERRUPTED} when the condition answers false, {@code ABORTED} after {@code maxEntries} entries or
 * {@code timeOutMs} (or when the cursor closes), {@code COMPLETED} at the last confirmed entry. Used by
 * {@code analyze-backlog}. Each batch is handled on the ledger's executor.
 */
final class CursorScan {

    private final CursorOwner cursor;
    private final CursorLedger ml;
    private final Predicate<Entry> condition;
    private final int batchSize;
    private final AtomicLong remaining;
    private final long deadline;
    private final CompletableFuture<ScanOutcome> result = new CompletableFuture<>();

    CursorScan(
            CursorOwner cursor,
            CursorLedger ml,
            Predicate<Entry> condition,
            int batchSize,
            long maxEntries,
            long timeOutMs) {
        this.cursor = cursor;
        this.ml = ml;
        this.condition = condition;
        this.batchSize = Math.max(1, batchSize);
        this.remaining = new AtomicLong(maxEntries);
        this.deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.max(0, timeOutMs));
    }

    CompletableFuture<ScanOutcome> start(long from) {
        scanFrom(Math.max(from, ml.startOffset()));
        return result;
    }

    private void scanFrom(long from) {
        long lce = ml.lceOffset();
        if (from > lce) {
            result.complete(ScanOutcome.COMPLETED);
            return;
        }
        if (cursor.isClosed() || System.nanoTime() > deadline) {
            result.complete(ScanOutcome.ABORTED);
            return;
        }
        // the callback completes the result either way.
        var unused = ml.readRaw(from, (int) Math.min(batchSize, lce - from + 1), Long.MAX_VALUE)
                .whenCompleteAsync(
                        (list, e) -> {
                            if (e != null) {
                                result.completeExceptionally(Errors.toMl(e));
                                return;
                            }
                            long last = from - 1;
                            ScanOutcome stop = null;
                            Throwable failure = null;
                            for (LogEntry le : list) {
                                long off = le.offset();
                                if (stop != null || failure != null || off > lce || cursor.isAcked(off)) {
                                    le.payload().release();
                                    last = Math.max(last, Math.min(off, lce));
                                    continue;
                                }
                                last = off;
                                if (remaining.getAndDecrement() <= 0) {
                                    le.payload().release();
                                    stop = ScanOutcome.ABORTED;
                                    continue;
                                }
                                Entry entry = ml.toEntry(le);
                                try {
                                    if (!condition.test(entry)) {
                                        stop = ScanOutcome.USER_INTERRUPTED;
                                    }
                                } catch (Throwable t) {
                                    failure = t;
                                } finally {
                                    entry.release();
                                }
                            }
                            if (failure != null) {
                                result.completeExceptionally(failure);
                            } else if (stop != null) {
                                result.complete(stop);
                            } else if (last < from) {
                                // Nothing readable where the entries should be (trimmed meanwhile): nothing more to
                                // scan.
                                result.complete(ScanOutcome.COMPLETED);
                            } else {
                                scanFrom(last + 1);
                            }
                        },
                        ml.executor());
    }
}
