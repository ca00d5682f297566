package dev.lakestream.pulsar.cursor;

import java.util.concurrent.CompletableFuture;
import java.util.function.LongFunction;
import java.util.function.Predicate;
import org.apache.bookkeeper.mledger.Entry;

/**
 * Binary search for the newest entry matching a predicate that holds for a prefix of the entries. The predicate is
 * given each entry it tests and must release it. {@code ml} reads the entry at an offset.
 */
public final class Search {

    private Search() {}

    /** The largest offset in {@code [lo, hi]} whose entry matches, or -1; reads O(log n) entries. */
    public static CompletableFuture<Long> newestMatching(
            LongFunction<CompletableFuture<Entry>> ml, Predicate<Entry> predicate, long lo, long hi) {
        if (lo > hi) {
            return CompletableFuture.completedFuture(-1L);
        }
        return test(ml, predicate, lo).thenCompose(first -> {
            if (!first) {
                return CompletableFuture.completedFuture(-1L);
            }
            return test(ml, predicate, hi)
                    .thenCompose(last -> last ? CompletableFuture.completedFuture(hi) : bisect(ml, predicate, lo, hi));
        });
    }

    /** Invariant: lo matches, hi does not. */
    private static CompletableFuture<Long> bisect(
            LongFunction<CompletableFuture<Entry>> ml, Predicate<Entry> predicate, long lo, long hi) {
        if (hi - lo <= 1) {
            return CompletableFuture.completedFuture(lo);
        }
        long mid = lo + (hi - lo) / 2;
        return test(ml, predicate, mid)
                .thenCompose(m -> m ? bisect(ml, predicate, mid, hi) : bisect(ml, predicate, lo, mid));
    }

    /**
     * The predicate owns the entry and releases it, as with Pulsar's own find (the broker's message finder and
     * expiry monitor release it in a finally block; releasing it here as well over-released shared buffers).
     */
    private static CompletableFuture<Boolean> test(
            LongFunction<CompletableFuture<Entry>> ml, Predicate<Entry> predicate, long off) {
        return ml.apply(off).thenApply(predicate::test);
    }
}
