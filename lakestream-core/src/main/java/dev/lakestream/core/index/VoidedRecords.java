package dev.lakestream.core.index;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Decides which scanned index records are void: records a stale owner committed after a newer owner sealed the stream
 * (docs/layout.md, §5). Readers ask it for every scan they deliver entries from; trimming and GC, which only count
 * what records reference, do not.
 */
@FunctionalInterface
public interface VoidedRecords {

    /** Nothing is ever void: for stores no fenced writer uses. */
    VoidedRecords NONE = (streamId, scanned) -> CompletableFuture.completedFuture(scanned);

    /**
     * The scanned records in order, those that are void {@linkplain IndexRecord#asVoided() marked}; cut short before
     * the first record whose fate is not settled yet (its newer owner has fenced but not sealed the stream: a
     * moment), so a reader reads it again a little later.
     *
     * @param scanned records of one stream in offset order, as just scanned (the decision relies on the scan having
     *     happened before this call)
     */
    CompletableFuture<List<IndexRecord>> resolve(long streamId, List<IndexRecord> scanned);
}
