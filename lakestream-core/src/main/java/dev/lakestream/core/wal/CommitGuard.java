package dev.lakestream.core.wal;

import java.util.concurrent.CompletableFuture;

/**
 * Consulted by the writer around each index commit of a stream: {@link #beforeCommit} just before it, failing (e.g.
 * with {@link dev.lakestream.core.log.StreamFencedException}) to refuse the commit, and {@link #afterCommit} once the
 * record landed, failing to keep its appends from being acknowledged (the record is void: a newer owner sealed the
 * stream before it landed). Fencing plugs in here.
 */
public interface CommitGuard {

    CommitGuard NONE = streamId -> CompletableFuture.completedFuture(Ticket.UNFENCED);

    /**
     * What a guard lets a commit go ahead with.
     *
     * @param epoch the write epoch the writer holds, written into the record; 0: none (the record is never void)
     * @param confirmedAtNanos when ({@link System#nanoTime()}) the reading that confirmed the epoch was sent
     */
    record Ticket(long epoch, long confirmedAtNanos) {
        public static final Ticket UNFENCED = new Ticket(0, 0);
    }

    CompletableFuture<Ticket> beforeCommit(long streamId);

    /**
     * Whether the appends of a record committed with {@code ticket}, starting at {@code startOffset}, may be
     * acknowledged; fails when they must not be. By default they may.
     */
    default CompletableFuture<Void> afterCommit(long streamId, Ticket ticket, long startOffset) {
        return CompletableFuture.completedFuture(null);
    }

    /**
     * Both guards, asked at once (so a commit waits for the slower of them, not for their sum); the commit goes ahead
     * when both let it, with the ticket that names an epoch (this guard's when both do). When both refuse, this
     * guard's refusal is the one reported.
     */
    default CommitGuard and(CommitGuard other) {
        CommitGuard self = this;
        return new CommitGuard() {
            @Override
            public CompletableFuture<Ticket> beforeCommit(long streamId) {
                CompletableFuture<Ticket> first = self.beforeCommit(streamId);
                CompletableFuture<Ticket> second = other.beforeCommit(streamId);
                return first.thenCombine(second, (a, b) -> a.epoch() != 0 ? a : b);
            }

            @Override
            public CompletableFuture<Void> afterCommit(long streamId, Ticket ticket, long startOffset) {
                return self.afterCommit(streamId, ticket, startOffset)
                        .thenCombine(other.afterCommit(streamId, ticket, startOffset), (a, b) -> null);
            }
        };
    }
}
