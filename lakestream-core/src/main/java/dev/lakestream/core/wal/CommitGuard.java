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

    /**
     * Both guards, asked at once (so a commit waits for the slower of them, not for their sum); the commit goes ahead
     * when both let it. When both refuse, this guard's refusal is the one reported.
     */
    default CommitGuard and(CommitGuard other) {
        return streamId -> {
            CompletableFuture<Void> first = beforeCommit(streamId);
            CompletableFuture<Void> second = other.beforeCommit(streamId);
            return first.thenCombine(second, (a, b) -> null);
        };
    }
}
