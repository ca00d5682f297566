package dev.lakestream.core.wal;

import dev.lakestream.core.concurrent.DaemonThreads;
import dev.lakestream.core.log.AppendRejectedException;
import dev.lakestream.core.log.AppendResult;
import dev.lakestream.core.log.LogException;
import dev.lakestream.core.metadata.MetadataStore;
import dev.lakestream.core.objectstore.ObjectStore;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Batches appends of many streams into WAL objects and commits each stream's share to the offset index.
 *
 * <p>An append is acknowledged only once its object is durable in the object store <em>and</em> its
 * stream's index record is durable in the metadata store. This class admits appends (bounded by
 * {@link WalWriterConfig#maxPendingBytes()}), gathers them in a {@link Batch}, seals batches and stores them from
 * its flush thread; the {@link IndexCommitter} commits each stored object's shares to the streams' indexes and
 * completes the appends, asking the {@link LostCommitResolver} when a commit's answer was lost.
 *
 * <p>When a batch is flushed (group commit, {@link WalWriterConfig.FlushPolicy#ADAPTIVE}): as soon as its
 * payloads reach {@link WalWriterConfig#maxObjectBytes()}; else once no object is being stored, after at
 * most {@link WalWriterConfig#linger()} and at least {@code 1 s / maxPutsPerSecond} after the previous
 * flush; else {@link WalWriterConfig#flushDelay()} after its first append. So an idle writer stores a
 * single append at once, and a busy one keeps filling the next batch while objects are being stored: the
 * batch size follows the load, not a timer. With {@link WalWriterConfig.FlushPolicy#DEADLINE} only the size
 * and the deadline count. Several flushes may be in flight; each stream's commits follow flush order, so one
 * stream's completions arrive in append order even when a later object is stored first.
 *
 * <p>A failure is final: an append reported failed is not in the stream and never will be, and no append of the
 * same stream accepted before the failure lands after it (they fail too), so a caller that resends failed appends,
 * as Pulsar's producers do, never stores one twice.
 *
 * <p>Ownership of payloads: {@link #append} copies the payload's bytes into the open batch at once, into pooled
 * direct chunks (see {@link PayloadBuffer} for why), so the caller may release its buffer as soon as {@code append}
 * returns. Only an append that must wait for room retains the buffer, until it is admitted (or fails). That is the
 * only copy: the object is stored from those chunks as they are ({@link WalObjectBody}: the index, then retained
 * slices, a gathering write), and the same memory is what the {@link ObjectCache} keeps. The writer releases its
 * reference once the PUT has completed (stored or failed); the cache releases its own when it evicts the object.
 */
public final class WalWriter implements AutoCloseable {

    private final ObjectStore objects;
    private final ByteBufAllocator allocator;
    private final WalWriterConfig config;
    private final ObjectCache cache;
    private final ScheduledExecutorService scheduler;
    private final Clock clock;
    private final IndexCommitter committer;

    private final Object lock = new Object();
    private Batch open;
    private long pendingBytes;
    private final ArrayDeque<PendingAppend> waiting = new ArrayDeque<>();
    /** Admission order of appends, over all streams: {@link PendingAppend#seq}. */
    private long nextAppendSeq;

    private final List<CompletableFuture<Void>> inFlight = new ArrayList<>();
    private boolean closed;
    /** Batches sealed and not yet stored (or failed): while any, the open batch keeps filling. */
    private int unstoredBatches;
    /** {@link System#nanoTime()} of the last seal, for the PUT-rate cap. */
    private long lastSealNanos;
    /** Appends per stream in the last sealed batch: how large to start the next batch's per-stream lists. */
    private int appendsPerStream = 4;
    /** One thread: flushes run in seal order (see {@link #submitIfSealed}). */
    private final ExecutorService flushThread =
            Executors.newSingleThreadExecutor(DaemonThreads.named("lakestream-wal-flush"));

    public WalWriter(
            ObjectStore objects,
            MetadataStore metadata,
            WalWriterConfig config,
            ObjectCache cache,
            CommitGuard guard,
            CommitListener listener,
            ScheduledExecutorService scheduler,
            Clock clock) {
        this(objects, metadata, config, cache, guard, listener, scheduler, clock, PooledByteBufAllocator.DEFAULT);
    }

    /** As above, with the payload chunks taken from {@code allocator} (tests count what it hands out). */
    WalWriter(
            ObjectStore objects,
            MetadataStore metadata,
            WalWriterConfig config,
            ObjectCache cache,
            CommitGuard guard,
            CommitListener listener,
            ScheduledExecutorService scheduler,
            Clock clock,
            ByteBufAllocator allocator) {
        this.allocator = allocator;
        this.objects = objects;
        this.config = config;
        this.cache = cache;
        this.scheduler = scheduler;
        this.clock = clock;
        this.lastSealNanos = System.nanoTime() - config.minPutIntervalNanos();
        LostCommitResolver resolver = new LostCommitResolver(metadata, scheduler, this::isClosed);
        this.committer = new IndexCommitter(metadata, guard, listener, resolver, this::acceptedSoFar);
    }

    /**
     * Appends one entry of {@code records} records to a stream.
     *
     * @return completes with the offsets assigned once the entry is durable, in append order per stream
     */
    public CompletableFuture<AppendResult> append(long streamId, int records, ByteBuf payload) {
        if (records < 1) {
            return CompletableFuture.failedFuture(new IllegalArgumentException(
                    "append to stream " + streamId + " must hold at least one record, not " + records));
        }
        PendingAppend append = new PendingAppend(streamId, records, payload.readableBytes());
        synchronized (lock) {
            append.admittedAs(nextAppendSeq++);
            if (closed) {
                append.fail(new LogException("WAL writer is closed; append to stream " + streamId + " refused"));
                return append.result();
            }
            if (!waiting.isEmpty() || !hasRoomFor(append.size())) {
                if (config.whenFull() == WalWriterConfig.WhenFull.REJECT) {
                    append.fail(new AppendRejectedException("WAL writer is full: " + pendingBytes + " bytes pending of "
                            + config.maxPendingBytes() + " (lakestream.writer.maxPendingBytes); append of "
                            + append.size() + " bytes to stream " + streamId + " rejected"));
                    return append.result();
                }
                try {
                    append.hold(payload);
                } catch (RuntimeException e) {
                    append.fail(unreadablePayload(append, e));
                    return append.result();
                }
                waiting.add(append);
                return append.result();
            }
            admitOrFail(append, payload);
        }
        return append.result();
    }

    /** Flushes whatever is buffered now, without waiting for the size or deadline. */
    public void flushNow() {
        synchronized (lock) {
            sealOpen();
        }
    }

    /** Bytes accepted and not yet stored in the object store. */
    public long pendingBytes() {
        synchronized (lock) {
            return pendingBytes;
        }
    }

    /** Flushes what is buffered and completes when every flush in flight has finished. */
    public CompletableFuture<Void> closeAsync() {
        List<PendingAppend> refused;
        synchronized (lock) {
            closed = true;
            refused = new ArrayList<>(waiting);
            waiting.clear();
        }
        refused.forEach(a ->
                a.fail(new LogException("WAL writer closed before append to stream " + a.streamId() + " found room")));
        flushNow();
        if (flushThread.isShutdown()) {
            return CompletableFuture.completedFuture(null);
        }
        // Runs after every flush handed over so far has registered itself as in flight (the thread is FIFO).
        CompletableFuture<Void> drained = new CompletableFuture<>();
        flushThread.execute(() -> {
            List<CompletableFuture<Void>> pending;
            synchronized (lock) {
                pending = new ArrayList<>(inFlight);
            }
            // completes drained whatever the outcome: close waits for the flushes, not their success.
            var unused = CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new))
                    .whenComplete((v, e) -> drained.complete(null));
        });
        flushThread.shutdown();
        return drained;
    }

    @Override
    public void close() {
        closeAsync().join();
    }

    private boolean hasRoomFor(long size) {
        // A single append larger than the bound is let through when nothing else is pending.
        return pendingBytes == 0 || pendingBytes + size <= config.maxPendingBytes();
    }

    /**
     * Copies the append into the open batch and seals the batch when it is full; fails the append if its
     * payload cannot be read. Called under the lock.
     */
    private void admitOrFail(PendingAppend append, ByteBuf payload) {
        if (open == null) {
            Batch batch = new Batch(allocator, appendsPerStream, System.nanoTime());
            open = batch;
            // a timer: the batch's appends carry the flush's outcome.
            var unused = scheduler.schedule(
                    () -> flushIfOpen(batch), config.flushDelay().toNanos(), TimeUnit.NANOSECONDS);
        }
        try {
            open.add(append, payload);
        } catch (RuntimeException e) {
            append.fail(unreadablePayload(append, e));
            return;
        }
        pendingBytes += append.size();
        if (open.payloadBytes() >= config.maxObjectBytes()) {
            sealOpen();
        } else {
            armEarlyFlush();
        }
    }

    /**
     * Group commit: once no sealed batch is waiting to be stored, the open batch is flushed after its linger
     * and no sooner than the PUT-rate cap allows. Called under the lock when a batch gets appends and when an
     * object is stored; arms each batch once (a sealed batch's timer finds it gone and does nothing).
     */
    private void armEarlyFlush() {
        Batch batch = open;
        if (config.flushPolicy() != WalWriterConfig.FlushPolicy.ADAPTIVE
                || batch == null
                || unstoredBatches > 0
                || batch.isEmpty()
                || !batch.armEarlyFlushOnce()) {
            return;
        }
        long at =
                Math.max(batch.openedNanos() + config.linger().toNanos(), lastSealNanos + config.minPutIntervalNanos());
        long delay = at - System.nanoTime();
        if (delay <= 0) {
            sealOpen();
        } else {
            // a timer: the batch's appends carry the flush's outcome.
            var unused = scheduler.schedule(() -> flushIfOpen(batch), delay, TimeUnit.NANOSECONDS);
        }
    }

    private void flushIfOpen(Batch batch) {
        synchronized (lock) {
            if (open == batch) {
                sealOpen();
            }
        }
    }

    /** Seals the open batch, if any, and hands it to the flush thread. Called under the lock. */
    private void sealOpen() {
        Batch sealed = open;
        open = null;
        if (sealed == null) {
            return;
        }
        if (!sealed.isEmpty()) {
            appendsPerStream = Math.max(4, sealed.appendCount() / sealed.streamCount());
            unstoredBatches++;
            lastSealNanos = System.nanoTime();
        }
        submitIfSealed(sealed);
    }

    /**
     * Hands a sealed batch to the flush thread. Called under the lock, so batches are flushed in the order
     * they were sealed: each flush reserves its streams' places in their commit chains, and that order is
     * what keeps one stream's completions in append order across objects. It also keeps assembling the
     * object and its checksum off the appending thread (in a broker, a Netty event loop); the appending thread
     * only copies its own payload into the batch. Empty batches (an append whose payload could not be read)
     * are dropped.
     */
    private void submitIfSealed(Batch sealed) {
        if (sealed != null && !sealed.isEmpty()) {
            flushThread.execute(() -> flush(sealed));
        }
    }

    @SuppressWarnings("UndefinedEquals") // inFlight.remove(flushDone) removes this very future: identity is wanted
    private void flush(Batch batch) {
        String key = WalObjectKeys.newKey(clock.instant());
        Batch.Built built;
        try {
            built = batch.build();
        } catch (RuntimeException e) {
            LogException failure = new LogException("could not build WAL object " + key + ": " + e, e);
            batch.parts().forEach(part -> committer.failAppends(part.streamId(), part.appends(), failure));
            release(batch);
            return;
        }
        WalObjectBody.Built object = built.object();
        long objectSize = object.bytes().readableBytes();

        CompletableFuture<Void> flushDone = new CompletableFuture<>();
        synchronized (lock) {
            inFlight.add(flushDone);
        }
        // Takes each stream's place in its commit chain now, in flush order, before the PUT can finish.
        CompletableFuture<Void> stored = new CompletableFuture<>();
        CompletableFuture<Void> committed =
                committer.commitOnceStored(batch.parts(), stored, key, objectSize, built.indexLength());

        // Charged what its chunks occupy, not only its bytes: that is the memory the cache keeps.
        long charge = batch.chunkBytes() + (objectSize - batch.payloadBytes());
        CompletableFuture<Void> sent;
        try {
            sent = objects.put(key, object.store());
        } catch (RuntimeException e) {
            sent = CompletableFuture.failedFuture(e);
        }
        // stored carries the outcome on to the commits, after the budget is given back.
        var unusedPut = sent.whenComplete((v, e) -> {
                    if (e == null) {
                        cache.put(key, object.bytes(), charge);
                    }
                    // The writer's reference: the object's memory is freed now unless the cache keeps it.
                    object.bytes().release();
                    release(batch);
                })
                .whenComplete((v, e) -> {
                    if (e == null) {
                        stored.complete(null);
                    } else {
                        stored.completeExceptionally(e);
                    }
                });
        // the commits report to their appends; this only ends the flush.
        var unused = committed.whenComplete((v, e) -> {
            synchronized (lock) {
                inFlight.remove(flushDone);
            }
            flushDone.complete(null);
        });
    }

    /** The appends accepted so far (their count in admission order): for the committer's failure marks. */
    private long acceptedSoFar() {
        synchronized (lock) {
            return nextAppendSeq;
        }
    }

    private boolean isClosed() {
        synchronized (lock) {
            return closed;
        }
    }

    /**
     * Returns a stored (or failed) batch's bytes to the budget, admits waiting appends that now fit, and lets
     * the open batch be flushed if this was the last batch being stored.
     */
    private void release(Batch batch) {
        synchronized (lock) {
            if (!batch.releaseOnce()) {
                return;
            }
            pendingBytes -= batch.payloadBytes();
            unstoredBatches--;
            while (!waiting.isEmpty() && hasRoomFor(waiting.peek().size())) {
                PendingAppend next = waiting.poll();
                admitOrFail(next, next.held());
                next.releasePayload();
            }
            armEarlyFlush();
        }
    }

    private static LogException unreadablePayload(PendingAppend append, RuntimeException e) {
        return new LogException(
                "could not read the payload of an append to stream " + append.streamId()
                        + " (was it released before append returned?): " + e,
                e);
    }
}
