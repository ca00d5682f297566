package dev.lakestream.core.wal;

import dev.lakestream.core.index.IndexKey;
import dev.lakestream.core.index.IndexValue;
import dev.lakestream.core.log.AppendRejectedException;
import dev.lakestream.core.log.AppendResult;
import dev.lakestream.core.log.LogException;
import dev.lakestream.core.metadata.MetadataStore;
import dev.lakestream.core.metadata.PutOptions;
import dev.lakestream.core.metadata.PutResult;
import dev.lakestream.core.objectstore.ObjectStore;
import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Batches appends of many streams into WAL objects and commits each stream's share to the offset index.
 *
 * <p>An append is acknowledged only once its object is durable in the object store <em>and</em> its
 * stream's index record is durable in the metadata store. The index record is one sequence-key put on
 * the stream's prefix with deltas {@code [records, bytes]}: the store assigns the offsets and writes the
 * index entry in the same linearizable write, so several writers on one stream never overlap.
 *
 * <p>A batch is flushed when its payloads reach {@link WalWriterConfig#maxObjectBytes()} or
 * {@link WalWriterConfig#flushDelay()} after its first append, whichever comes first; several flushes may
 * be in flight. Each stream's index commits are chained in flush order, so one stream's completions
 * arrive in append order even when a later object is stored first. A failed PUT fails every append of
 * that object; a failed index commit fails only that stream's appends of the object.
 *
 * <p>Ownership of payloads: {@link #append} retains the buffer and releases it once its bytes are copied
 * into the object (or the append fails), so the caller may release its own reference at once.
 */
public final class WalWriter implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(WalWriter.class);
    private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);

    private final ObjectStore objects;
    private final MetadataStore metadata;
    private final WalWriterConfig config;
    private final ObjectCache cache;
    private final CommitGuard guard;
    private final CommitListener listener;
    private final ScheduledExecutorService scheduler;
    private final Clock clock;

    private final Object lock = new Object();
    private Batch open;
    private long pendingBytes;
    private final ArrayDeque<PendingAppend> waiting = new ArrayDeque<>();
    private final Map<Long, CompletableFuture<Void>> commitTails = new HashMap<>();
    private final List<CompletableFuture<Void>> inFlight = new ArrayList<>();
    private boolean closed;
    /** One thread: flushes run in seal order (see {@link #submitIfSealed}). */
    private final java.util.concurrent.ExecutorService flushThread = java.util.concurrent.Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "lakestream-wal-flush");
        t.setDaemon(true);
        return t;
    });

    public WalWriter(ObjectStore objects, MetadataStore metadata, WalWriterConfig config, ObjectCache cache,
                     CommitGuard guard, CommitListener listener, ScheduledExecutorService scheduler, Clock clock) {
        this.objects = objects;
        this.metadata = metadata;
        this.config = config;
        this.cache = cache;
        this.guard = guard;
        this.listener = listener;
        this.scheduler = scheduler;
        this.clock = clock;
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
        PendingAppend append = new PendingAppend(streamId, records, payload.retain(), new CompletableFuture<>());
        synchronized (lock) {
            if (closed) {
                append.fail(new LogException("WAL writer is closed; append to stream " + streamId + " refused"));
                return append.result;
            }
            if (!waiting.isEmpty() || !hasRoomFor(append.size())) {
                if (config.whenFull() == WalWriterConfig.WhenFull.REJECT) {
                    append.fail(new AppendRejectedException("WAL writer is full: " + pendingBytes + " bytes pending of "
                            + config.maxPendingBytes() + " (lakestream.writer.maxPendingBytes); append of "
                            + append.size() + " bytes to stream " + streamId + " rejected"));
                    return append.result;
                }
                waiting.add(append);
                return append.result;
            }
            submitIfSealed(admit(append));
        }
        return append.result;
    }

    /** Flushes whatever is buffered now, without waiting for the size or deadline. */
    public void flushNow() {
        synchronized (lock) {
            Batch sealed = open;
            open = null;
            submitIfSealed(sealed);
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
        refused.forEach(a -> a.fail(new LogException("WAL writer closed before append to stream " + a.streamId
                + " found room")));
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
            CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new))
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

    /** Adds to the open batch; returns the batch if it must be flushed now. Called under the lock. */
    private Batch admit(PendingAppend append) {
        pendingBytes += append.size();
        if (open == null) {
            Batch batch = new Batch();
            open = batch;
            scheduler.schedule(() -> flushIfOpen(batch), config.flushDelay().toNanos(), TimeUnit.NANOSECONDS);
        }
        open.add(append);
        if (open.bytes >= config.maxObjectBytes()) {
            Batch sealed = open;
            open = null;
            return sealed;
        }
        return null;
    }

    private void flushIfOpen(Batch batch) {
        synchronized (lock) {
            if (open != batch) {
                return;
            }
            open = null;
            submitIfSealed(batch);
        }
    }

    /**
     * Hands a sealed batch to the flush thread. Called under the lock, so batches are flushed in the order
     * they were sealed: each flush reserves its streams' places in their commit chains, and that order is
     * what keeps one stream's completions in append order across objects. It also keeps the copy into the
     * object and its checksum off the appending thread (in a broker, a Netty event loop).
     */
    private void submitIfSealed(Batch sealed) {
        if (sealed != null) {
            flushThread.execute(() -> flush(sealed));
        }
    }

    private void flush(Batch batch) {
        String key = WalObjectKeys.newKey(clock.instant());
        ByteBuffer object;
        int indexLength;
        try {
            Map<Long, List<WalObjectFormat.EntryLocation>> locations = new LinkedHashMap<>();
            long dataOffset = 0;
            for (Map.Entry<Long, List<PendingAppend>> s : batch.streams.entrySet()) {
                List<WalObjectFormat.EntryLocation> entries = new ArrayList<>(s.getValue().size());
                for (PendingAppend a : s.getValue()) {
                    entries.add(new WalObjectFormat.EntryLocation(dataOffset, a.size(), a.records));
                    dataOffset += a.size();
                }
                locations.put(s.getKey(), entries);
            }
            ByteBuffer index = WalObjectFormat.encodeIndex(locations);
            indexLength = index.remaining() - WalObjectFormat.LENGTH_PREFIX_BYTES;
            object = ByteBuffer.allocate(Math.toIntExact(index.remaining() + dataOffset));
            object.put(index);
            for (List<PendingAppend> appends : batch.streams.values()) {
                for (PendingAppend a : appends) {
                    // ByteBuf.getBytes(int, ByteBuffer) fills the destination: give it exactly this entry's room.
                    a.payload.getBytes(a.payload.readerIndex(), object.slice(object.position(), a.size()));
                    object.position(object.position() + a.size());
                }
            }
            object.flip();
        } catch (RuntimeException e) {
            batch.forEach(a -> a.fail(new LogException("could not build WAL object " + key + ": " + e, e)));
            release(batch);
            return;
        } finally {
            batch.forEach(PendingAppend::releasePayload);
        }

        // Reserve each stream's place in its commit chain now, in flush order, before the PUT can finish.
        Map<Long, CompletableFuture<Void>> previous = new HashMap<>();
        Map<Long, CompletableFuture<Void>> mine = new HashMap<>();
        CompletableFuture<Void> flushDone = new CompletableFuture<>();
        synchronized (lock) {
            for (Long streamId : batch.streams.keySet()) {
                CompletableFuture<Void> tail = new CompletableFuture<>();
                previous.put(streamId, commitTails.getOrDefault(streamId, DONE));
                commitTails.put(streamId, tail);
                mine.put(streamId, tail);
            }
            inFlight.add(flushDone);
        }

        ByteBuffer stored = object;
        CompletableFuture<Void> put = objects.put(key, object.duplicate()).whenComplete((v, e) -> {
            if (e == null) {
                cache.put(key, stored);
            }
            release(batch);
        });
        List<CompletableFuture<Void>> commits = new ArrayList<>();
        boolean compact = batch.streams.size() == 1;
        for (Map.Entry<Long, List<PendingAppend>> s : batch.streams.entrySet()) {
            long streamId = s.getKey();
            List<PendingAppend> appends = s.getValue();
            CompletableFuture<Void> done = previous.get(streamId)
                    .handle((v, e) -> null)
                    .thenCompose(ignored -> put.handle((v, e) -> e))
                    .thenCompose(putError -> {
                        if (putError != null) {
                            Throwable cause = unwrap(putError);
                            appends.forEach(a -> a.fail(cause));
                            return DONE;
                        }
                        return commit(streamId, appends, key, stored.remaining(), indexLength, compact);
                    })
                    .whenComplete((v, e) -> {
                        CompletableFuture<Void> tail = mine.get(streamId);
                        synchronized (lock) {
                            commitTails.remove(streamId, tail);
                        }
                        tail.complete(null);
                    });
            commits.add(done);
        }
        CompletableFuture.allOf(commits.toArray(CompletableFuture[]::new)).whenComplete((v, e) -> {
            synchronized (lock) {
                inFlight.remove(flushDone);
            }
            flushDone.complete(null);
        });
    }

    private CompletableFuture<Void> commit(long streamId, List<PendingAppend> appends, String objectKey,
                                           long objectSize, int indexLength, boolean compact) {
        int[] counts = new int[appends.size()];
        long records = 0;
        long bytes = 0;
        for (int i = 0; i < counts.length; i++) {
            counts[i] = appends.get(i).records;
            records += counts[i];
            bytes += appends.get(i).size();
        }
        IndexValue value = new IndexValue(objectKey, compact, records, bytes, objectSize, counts,
                Map.of(IndexValue.EXTRA_INDEX_LENGTH, Integer.toString(indexLength)));
        long totalRecords = records;
        long totalBytes = bytes;
        return guard.beforeCommit(streamId)
                .thenCompose(ok -> metadata.put(IndexKey.prefix(streamId), value.encode(), PutOptions.DEFAULT
                        .partitionKey(IndexKey.partitionKey(streamId)).sequenceKeyDeltas(totalRecords, totalBytes)))
                .handle((PutResult result, Throwable e) -> {
                    if (e != null) {
                        Throwable cause = unwrap(e);
                        log.warn("Index commit of stream {} for WAL object {} failed: {}", streamId, objectKey,
                                cause.toString());
                        appends.forEach(a -> a.fail(cause));
                        return null;
                    }
                    IndexKey key = IndexKey.parse(result.key());
                    long offset = key.endOffset() - totalRecords;
                    long cumulative = key.cumulativeSize() - totalBytes;
                    long timestamp = result.version().createdTimestamp();
                    for (PendingAppend a : appends) {
                        cumulative += a.size();
                        a.result.complete(new AppendResult(streamId, offset, a.records, timestamp, cumulative));
                        offset += a.records;
                    }
                    listener.committed(streamId, key.endOffset());
                    return null;
                });
    }

    /** Returns a stored batch's bytes to the budget and admits waiting appends that now fit. */
    private void release(Batch batch) {
        synchronized (lock) {
            if (batch.released) {
                return;
            }
            batch.released = true;
            pendingBytes -= batch.bytes;
            while (!waiting.isEmpty() && hasRoomFor(waiting.peek().size())) {
                submitIfSealed(admit(waiting.poll()));
            }
        }
    }

    private static Throwable unwrap(Throwable e) {
        return e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
    }

    /** Appends gathered for one object, grouped by stream in arrival order. */
    private static final class Batch {
        final LinkedHashMap<Long, List<PendingAppend>> streams = new LinkedHashMap<>();
        long bytes;
        boolean released;

        void add(PendingAppend a) {
            streams.computeIfAbsent(a.streamId, id -> new ArrayList<>()).add(a);
            bytes += a.size();
        }

        void forEach(java.util.function.Consumer<PendingAppend> action) {
            streams.values().forEach(list -> list.forEach(action));
        }
    }

    private static final class PendingAppend {
        final long streamId;
        final int records;
        /** Dropped once released, so a heap payload does not outlive its copy into the object. */
        ByteBuf payload;
        final int size;
        final CompletableFuture<AppendResult> result;
        private boolean payloadReleased;

        PendingAppend(long streamId, int records, ByteBuf payload, CompletableFuture<AppendResult> result) {
            this.streamId = streamId;
            this.records = records;
            this.payload = payload;
            this.size = payload.readableBytes();
            this.result = result;
        }

        int size() {
            return size;
        }

        void fail(Throwable e) {
            releasePayload();
            result.completeExceptionally(e);
        }

        synchronized void releasePayload() {
            if (!payloadReleased) {
                payloadReleased = true;
                payload.release();
                payload = null;
            }
        }
    }
}
