package dev.lakestream.pulsar.compaction;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.apache.bookkeeper.mledger.Entry;
import org.apache.bookkeeper.mledger.ManagedCursor;
import org.apache.bookkeeper.mledger.ManagedLedger;
import org.apache.bookkeeper.mledger.Position;
import org.apache.pulsar.compaction.CompactorMXBeanImpl;
import org.apache.pulsar.compaction.TopicCompactionService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The compaction service of one Lakestream topic. The committed view (horizon and compacted stream, from the
 * {@code __compaction} cursor) is loaded on first use and replaced when a run commits; readers of the compacted view
 * (the dispatcher of a {@code readCompacted} subscription, via {@code CompactedTopicUtils}) read it up to the horizon
 * and the topic after it.
 */
public final class LakestreamTopicCompactionService implements TopicCompactionService {

    private static final Logger LOG = LoggerFactory.getLogger(LakestreamTopicCompactionService.class);

    private final String topic;
    private final CompactionTopic access;
    private final CompactedStreams streams;
    private final boolean retainNullKey;
    private final Executor executor;
    private final CompactorMXBeanImpl statistics;

    private CompletableFuture<Optional<CompactedView>> view;
    private CompletableFuture<Void> running = CompletableFuture.completedFuture(null);
    private volatile boolean closed;

    LakestreamTopicCompactionService(
            String topic,
            CompactionTopic access,
            CompactedStreams streams,
            boolean retainNullKey,
            Executor executor,
            CompactorMXBeanImpl statistics) {
        this.topic = topic;
        this.access = access;
        this.streams = streams;
        this.retainNullKey = retainNullKey;
        this.executor = executor;
        this.statistics = statistics;
    }

    @Override
    public synchronized CompletableFuture<Void> compact() {
        if (closed) {
            return CompletableFuture.failedFuture(
                    new IllegalStateException("the compaction service of " + topic + " is closed"));
        }
        if (!running.isDone()) {
            return CompletableFuture.failedFuture(
                    new IllegalStateException("a compaction of " + topic + " is already running"));
        }
        // Everything below runs asynchronously: the broker calls this under the topic's lock.
        CompletableFuture<Void> run = view().thenCompose(prev -> access.ledger()
                .thenCompose(ledger -> access.cursor().thenCompose(cursor -> runOnce(ledger, cursor, prev))));
        running = run;
        return run;
    }

    private CompletableFuture<Void> runOnce(ManagedLedger ledger, ManagedCursor cursor, Optional<CompactedView> prev) {
        Optional<CompactionState> before = prev.map(CompactedView::state);
        return new CompactionRun(topic, streams, ledger, cursor, before, retainNullKey, executor, statistics)
                .run()
                .thenAccept(after -> {
                    if (after.isEmpty() || after.equals(before)) {
                        return;
                    }
                    CompactionState s = after.get();
                    synchronized (this) {
                        view = CompletableFuture.completedFuture(
                                Optional.of(new CompactedView(s, streams.open(s.streamId()))));
                    }
                    // The new view is committed: the streams of earlier runs are garbage now.
                    // the callback logs a failure; the old streams are garbage either way.
                    var unused = streams.deleteAllBut(s.streamId()).whenComplete((n, e) -> {
                        if (e != null) {
                            LOG.warn("Compaction of {}: could not delete the previous compacted streams", topic, e);
                        }
                    });
                });
    }

    @Override
    public CompletableFuture<List<Entry>> readCompactedEntries(Position startPosition, int numberOfEntriesToRead) {
        Objects.requireNonNull(startPosition, "startPosition");
        if (numberOfEntriesToRead <= 0) {
            return CompletableFuture.failedFuture(
                    new IllegalArgumentException("numberOfEntriesToRead must be > 0, was " + numberOfEntriesToRead));
        }
        return view().thenCompose(v -> v.isEmpty()
                ? CompletableFuture.completedFuture(List.<Entry>of())
                : v.get().read(startPosition, numberOfEntriesToRead));
    }

    /** The horizon: the last position of the topic the compacted view covers, or null when nothing is compacted. */
    @Override
    public CompletableFuture<Position> getLastCompactedPosition() {
        return view().thenApply(v -> v.map(x -> x.state().horizon()).orElse(null));
    }

    @Override
    public CompletableFuture<Position> findEntryByPublishTime(long publishTime) {
        return view().thenCompose(v -> v.isEmpty()
                ? CompletableFuture.completedFuture((Position) null)
                : v.get().findByPublishTime(publishTime));
    }

    @Override
    public CompletableFuture<MessagePosition> getLastMessagePosition() {
        return view().thenCompose(v -> v.isEmpty()
                ? CompletableFuture.completedFuture(MessagePosition.EARLIEST)
                : v.get().lastMessage());
    }

    /** The committed state, if any (for tests and diagnostics). */
    public CompletableFuture<Optional<Long>> compactedStreamId() {
        return view().thenApply(v -> v.map(x -> x.state().streamId()));
    }

    @Override
    public void close() {
        closed = true;
    }

    /** The committed view, loaded once from the cursor; a failed load is retried by the next caller. */
    private synchronized CompletableFuture<Optional<CompactedView>> view() {
        if (view == null || view.isCompletedExceptionally()) {
            view = load();
        }
        return view;
    }

    private CompletableFuture<Optional<CompactedView>> load() {
        return access.existingCursor().thenCompose(cursor -> {
            Optional<CompactionState.Committed> c =
                    cursor.flatMap(x -> CompactionState.fromProperties(x.getProperties()));
            if (c.isEmpty()) {
                return CompletableFuture.completedFuture(Optional.empty());
            }
            var stream = streams.open(c.get().streamId());
            return stream.endOffset()
                    .thenApply(n -> Optional.of(new CompactedView(
                            new CompactionState(c.get().horizon(), c.get().streamId(), n), stream)));
        });
    }

    @Override
    public String toString() {
        return "compaction service of " + topic;
    }
}
