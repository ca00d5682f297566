package dev.lakestream.core.wal;

import java.util.concurrent.CompletableFuture;

/**
 * Consulted by the writer just before it commits a stream's index record; fails the future (e.g. with
 * {@link dev.lakestream.core.log.StreamFencedException}) to refuse the commit. Fencing plugs in here.
 */
@FunctionalInterface
public interface CommitGuard {

    CommitGuard NONE = streamId -> CompletableFuture.completedFuture(null);

    CompletableFuture<Void> beforeCommit(long streamId);
}
