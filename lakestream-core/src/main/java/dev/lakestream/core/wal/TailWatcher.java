package dev.lakestream.core.wal;

import dev.lakestream.core.index.IndexKey;
import dev.lakestream.core.index.OffsetIndex;
import dev.lakestream.core.metadata.MetadataStore;
import dev.lakestream.core.metadata.Notification;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Wakes readers waiting at the end of a stream when new data commits.
 *
 * <p>Three sources, from fastest to slowest: appends committed by this process ({@link #committed}, called
 * by the writer: immediate); change notifications of the metadata store for index keys (appends by other
 * processes: milliseconds); and, for streams that have waiters, a poll of the stream's end offset every
 * {@code pollInterval}, which bounds the delay even if a notification is lost (e.g. across a reconnect).
 */
public final class TailWatcher implements AutoCloseable {

    private final OffsetIndex index;
    private final Map<Long, List<Waiter>> waiters = new ConcurrentHashMap<>();
    private final AutoCloseable subscription;
    private final ScheduledFuture<?> poller;

    private record Waiter(long offset, CompletableFuture<Long> future) {}

    public TailWatcher(
            MetadataStore metadata, OffsetIndex index, ScheduledExecutorService scheduler, Duration pollInterval) {
        this.index = index;
        this.subscription = metadata.addListener(this::onChange);
        long nanos = pollInterval.toNanos();
        this.poller = scheduler.scheduleWithFixedDelay(this::poll, nanos, nanos, TimeUnit.NANOSECONDS);
    }

    /**
     * Completes with the stream's end offset once it is past {@code offset} (at once if it already is).
     * Cancel the returned future to stop waiting.
     */
    public CompletableFuture<Long> waitBeyond(long streamId, long offset) {
        CompletableFuture<Long> f = new CompletableFuture<>();
        waiters.compute(streamId, (id, list) -> {
            List<Waiter> l = list == null ? new ArrayList<>() : list;
            l.add(new Waiter(offset, f));
            return l;
        });
        // The data may have committed before we registered: check once now.
        // a failed look-up is retried by the next poll.
        var unused = index.endOffset(streamId).thenAccept(end -> committed(streamId, end));
        return f;
    }

    /** The stream's end offset is now at least {@code endOffset}: wake who waits below it. */
    public void committed(long streamId, long endOffset) {
        List<Waiter> woken = new ArrayList<>();
        waiters.computeIfPresent(streamId, (id, list) -> {
            list.removeIf(w -> {
                if (w.future.isDone()) {
                    return true;
                }
                if (endOffset > w.offset) {
                    woken.add(w);
                    return true;
                }
                return false;
            });
            return list.isEmpty() ? null : list;
        });
        woken.forEach(w -> w.future.complete(endOffset));
    }

    private void onChange(Notification n) {
        if (n instanceof Notification.KeyCreated c && c.key().length() == 62) {
            try {
                IndexKey k = IndexKey.parse(c.key());
                committed(k.streamId(), k.endOffset());
            } catch (IllegalArgumentException notAnIndexKey) {
                // Another kind of key of the same length.
            }
        }
    }

    private void poll() {
        for (Long streamId : waiters.keySet()) {
            // a failed look-up is retried by the next poll.
            var unused = index.endOffset(streamId).thenAccept(end -> committed(streamId, end));
        }
    }

    @Override
    public void close() {
        poller.cancel(false);
        try {
            subscription.close();
        } catch (Exception ignored) {
            // Nothing to do: we are going away.
        }
        waiters.values().forEach(l -> l.forEach(w -> w.future.cancel(false)));
        waiters.clear();
    }
}
