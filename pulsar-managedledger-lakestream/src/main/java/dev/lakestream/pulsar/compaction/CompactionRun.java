package dev.lakestream.pulsar.compaction;

import dev.lakestream.core.StreamLog;
import io.netty.buffer.ByteBuf;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.apache.bookkeeper.mledger.AsyncCallbacks;
import org.apache.bookkeeper.mledger.ManagedCursor;
import org.apache.bookkeeper.mledger.ManagedLedger;
import org.apache.bookkeeper.mledger.ManagedLedgerException;
import org.apache.bookkeeper.mledger.Position;
import org.apache.pulsar.compaction.CompactorMXBeanImpl;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One compaction of one topic: phase one over the previous compacted view and the new messages finds each key's
 * latest message, phase two writes what the view keeps to a new stream (each message with its original position),
 * then one mark-delete of the {@code __compaction} cursor at the new horizon, carrying the new stream id, commits the
 * run. Until that write the previous view stays the committed one; a run that fails deletes its stream.
 *
 * <p>It records what Pulsar's compactor records, in the broker's compaction statistics: the start and end (success or
 * failure, duration) of every run, including one with nothing new; the bytes phase one reads and phase two writes; the
 * latency of each write; and the removed events ({@link CompactionPlan#removedEvents()}).
 */
final class CompactionRun {

    private static final Logger LOG = LoggerFactory.getLogger(CompactionRun.class);

    private final String topic;
    private final CompactedStreams streams;
    private final ManagedLedger ledger;
    private final ManagedCursor compactionCursor;
    private final Optional<CompactionState> previous;
    private final boolean retainNullKey;
    private final Executor executor;
    private final CompactorMXBeanImpl statistics;

    CompactionRun(
            String topic,
            CompactedStreams streams,
            ManagedLedger ledger,
            ManagedCursor compactionCursor,
            Optional<CompactionState> previous,
            boolean retainNullKey,
            Executor executor,
            CompactorMXBeanImpl statistics) {
        this.topic = topic;
        this.streams = streams;
        this.ledger = ledger;
        this.compactionCursor = compactionCursor;
        this.previous = previous;
        this.retainNullKey = retainNullKey;
        this.executor = executor;
        this.statistics = statistics;
    }

    /** Runs; completes with the new committed state, or the previous one when there was nothing new to compact. */
    CompletableFuture<Optional<CompactionState>> run() {
        statistics.addCompactionStartOp(topic);
        CompletableFuture<Optional<CompactionState>> run;
        try {
            run = compact();
        } catch (RuntimeException e) {
            run = CompletableFuture.failedFuture(e);
        }
        return run.whenComplete((s, e) -> statistics.addCompactionEndOp(topic, e == null));
    }

    private CompletableFuture<Optional<CompactionState>> compact() {
        Position end = ledger.getLastConfirmedEntry();
        Position after = previous.map(CompactionState::horizon).orElse(null);
        if (end == null
                || (end.getEntryId() < 0 && after == null && ledger.getNumberOfEntries() == 0)
                || (after != null && end.compareTo(after) <= 0)) {
            LOG.info("Compaction of {}: nothing after the horizon {} (last entry {}), skipped", topic, after, end);
            return CompletableFuture.completedFuture(previous);
        }
        long t0 = System.nanoTime();
        StreamLog prevStream = previous.map(s -> streams.open(s.streamId())).orElse(null);
        long prevEntries = previous.map(CompactionState::entries).orElse(0L);
        CompactionInput input = new CompactionInput(prevStream, prevEntries, ledger, after, end, executor);
        CompactionPlan plan = new CompactionPlan(retainNullKey);
        LOG.info(
                "Compaction of {}: phase one over {} compacted entries and the messages after {} up to {}",
                topic,
                prevEntries,
                after,
                end);
        return input.forEach((p, m) -> {
                    statistics.addCompactionReadOp(topic, m.readableBytes());
                    plan.observe(p, m);
                    return null;
                })
                .thenCompose(v -> {
                    for (long i = plan.removedEvents(); i > 0; i--) {
                        statistics.addCompactionRemovedEvent(topic);
                    }
                    return streams.create(topic);
                })
                .thenCompose(out -> writeAndCommit(input, plan, out, end)
                        // the stage to continue with, flattened at once below
                        .<CompletionStage<CompactionState>>handle((s, e) -> {
                            if (e == null) {
                                LOG.info(
                                        "Compaction of {} committed {} entries ({} keys) in {} up to {} in {} ms",
                                        topic,
                                        s.entries(),
                                        plan.keys(),
                                        out,
                                        end,
                                        (System.nanoTime() - t0) / 1_000_000);
                                return CompletableFuture.completedFuture(s);
                            }
                            LOG.warn("Compaction of {} failed; the previous view stays; deleting {}", topic, out, e);
                            // Every stream of the topic but the committed one: this run's, and any a crash left behind.
                            return streams.deleteAllBut(previous.map(CompactionState::streamId)
                                            .orElse(-1L))
                                    .handle((n, e2) -> null)
                                    .<CompactionState>thenCompose(x -> CompletableFuture.failedFuture(e));
                        })
                        .thenCompose(f -> f))
                .thenApply(Optional::of);
    }

    private CompletableFuture<CompactionState> writeAndCommit(
            CompactionInput input, CompactionPlan plan, StreamLog out, Position end) {
        long[] written = {0};
        return input.forEach((p, m) -> {
                    Optional<ByteBuf> keep = plan.select(p, m);
                    if (keep.isEmpty()) {
                        return null;
                    }
                    ByteBuf record = CompactedRecord.encode(p, keep.get());
                    try {
                        written[0]++;
                        int bytes = record.readableBytes();
                        long sent = System.nanoTime();
                        return out.append(1, record).thenApply(r -> {
                            statistics.addCompactionWriteOp(topic, bytes);
                            statistics.addCompactionLatencyOp(topic, System.nanoTime() - sent, TimeUnit.NANOSECONDS);
                            return null;
                        });
                    } finally {
                        record.release();
                    }
                })
                .thenCompose(v -> {
                    CompactionState next = new CompactionState(end, out.id(), written[0]);
                    return markDelete(end, next).thenApply(x -> next);
                });
    }

    private CompletableFuture<Void> markDelete(Position horizon, CompactionState next) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        compactionCursor.asyncMarkDelete(
                horizon,
                next.toProperties(),
                new AsyncCallbacks.MarkDeleteCallback() {
                    @Override
                    public void markDeleteComplete(Object ctx) {
                        f.complete(null);
                    }

                    @Override
                    public void markDeleteFailed(ManagedLedgerException e, Object ctx) {
                        f.completeExceptionally(new IllegalStateException(
                                "Compaction of " + topic + " could not commit " + "horizon " + horizon + " on cursor "
                                        + compactionCursor.getName() + ": " + e.getMessage(),
                                e));
                    }
                },
                null);
        return f;
    }
}
