package dev.lakestream.core.wal;

import dev.lakestream.core.concurrent.DaemonThreads;
import dev.lakestream.core.index.IndexKey;
import dev.lakestream.core.index.IndexValue;
import dev.lakestream.core.log.AppendRejectedException;
import dev.lakestream.core.log.AppendResult;
import dev.lakestream.core.log.LogException;
import dev.lakestream.core.metadata.DeleteOptions;
import dev.lakestream.core.metadata.MetadataStore;
import dev.lakestream.core.metadata.MetadataStoreUnavailableException;
import dev.lakestream.core.metadata.PutOptions;
import dev.lakestream.core.metadata.Record;
import dev.lakestream.core.objectstore.ObjectStore;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
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
 * <p>When a batch is flushed (group commit, {@link WalWriterConfig.FlushPolicy#ADAPTIVE}): as soon as its
 * payloads reach {@link WalWriterConfig#maxObjectBytes()}; else once no object is being stored, after at
 * most {@link WalWriterConfig#linger()} and at least {@code 1 s / maxPutsPerSecond} after the previous
 * flush; else {@link WalWriterConfig#flushDelay()} after its first append. So an idle writer stores a
 * single append at once, and a busy one keeps filling the next batch while objects are being stored: the
 * batch size follows the load, not a timer. With {@link WalWriterConfig.FlushPolicy#DEADLINE} only the size
 * and the deadline count. Several flushes may be in flight. Each stream's index commits are chained in flush order, so one stream's completions
 * arrive in append order even when a later object is stored first. A failed PUT fails every append of
 * that object; a failed index commit fails only that stream's appends of the object.
 *
 * <p>A failure is final: an append reported failed is not in the stream and never will be, and no append of the
 * same stream accepted before the failure lands after it (they fail too), so a caller that resends failed appends,
 * as Pulsar's producers do, never stores one twice. An index commit whose answer is lost (timeout, store unreachable
 * or restarted) is therefore settled before its appends complete: see {@link #resolve}.
 *
 * <p>Ownership of payloads: {@link #append} copies the payload's bytes into the open batch at once, into pooled
 * direct chunks (see {@link PayloadBuffer} for why), so the caller may release its buffer as soon as {@code append}
 * returns. Only an append that must wait for room retains the buffer, until it is admitted (or fails). That is the
 * only copy: the object is stored from those chunks as they are ({@link WalObjectBody}: the index, then retained
 * slices, a gathering write), and the same memory is what the {@link ObjectCache} keeps. The writer releases its
 * reference once the PUT has completed (stored or failed); the cache releases its own when it evicts the object.
 */
public final class WalWriter implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(WalWriter.class);
    private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);
    /** Largest direct chunk holding a batch's payloads; a batch's chunks grow to it from {@link #FIRST_CHUNK_BYTES}. */
    static final int CHUNK_BYTES = 512 << 10;
    /** The first chunk of a batch: an idle writer's one-append object keeps no more memory than this in the cache. */
    static final int FIRST_CHUNK_BYTES = 8 << 10;
    /** Streams whose last commit end is remembered (LRU); a stream forgotten is scanned from its start. */
    private static final int MAX_KNOWN_ENDS = 1 << 16;

    private static final long RESOLVE_FIRST_DELAY_MS = 100;
    private static final long RESOLVE_MAX_DELAY_MS = 1_000;
    private static final int RESOLVE_SCAN_PAGE = 256;

    private final ObjectStore objects;
    private final ByteBufAllocator allocator;
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
    /** Admission order of appends, over all streams: {@link PendingAppend#seq}. */
    private long nextAppendSeq;
    /** Per stream, the last failure of its appends while appends accepted before it may still be pending. */
    private final Map<Long, StreamFailure> failedBefore = new HashMap<>();
    /**
     * Per stream, the end offset of its last commit by this writer: where a lost commit's record is looked for. A
     * bounded access-ordered map, not Caffeine: it is only touched under the writer's lock and evicts exactly.
     */
    private final Map<Long, Long> committedEnds = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, Long> eldest) {
            return size() > MAX_KNOWN_ENDS;
        }
    };

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
        this.metadata = metadata;
        this.config = config;
        this.cache = cache;
        this.guard = guard;
        this.listener = listener;
        this.scheduler = scheduler;
        this.clock = clock;
        this.lastSealNanos = System.nanoTime() - config.minPutIntervalNanos();
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
            append.seq = nextAppendSeq++;
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
                try {
                    append.payload = payload.retain();
                } catch (RuntimeException e) {
                    append.fail(unreadablePayload(append, e));
                    return append.result;
                }
                waiting.add(append);
                return append.result;
            }
            admitOrFail(append, payload);
        }
        return append.result;
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
                a.fail(new LogException("WAL writer closed before append to stream " + a.streamId + " found room")));
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
        if (open.payloads.size() >= config.maxObjectBytes()) {
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
                || batch.earlyFlushArmed
                || unstoredBatches > 0
                || batch.streams.isEmpty()) {
            return;
        }
        batch.earlyFlushArmed = true;
        long at = Math.max(batch.openedNanos + config.linger().toNanos(), lastSealNanos + config.minPutIntervalNanos());
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
        if (!sealed.streams.isEmpty()) {
            appendsPerStream = Math.max(4, sealed.appends / sealed.streams.size());
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
        if (sealed != null && !sealed.streams.isEmpty()) {
            flushThread.execute(() -> flush(sealed));
        }
    }

    @SuppressWarnings("UndefinedEquals") // inFlight.remove(flushDone) removes this very future: identity is wanted
    private void flush(Batch batch) {
        String key = WalObjectKeys.newKey(clock.instant());
        WalObjectBody.Built object;
        int indexLength;
        try {
            Map<Long, List<WalObjectFormat.EntryLocation>> locations = new LinkedHashMap<>();
            long dataOffset = 0;
            for (StreamPart part : batch.streams.values()) {
                List<WalObjectFormat.EntryLocation> entries = new ArrayList<>(part.appends.size());
                for (PendingAppend a : part.appends) {
                    entries.add(new WalObjectFormat.EntryLocation(dataOffset, a.size(), a.records));
                    dataOffset += a.size();
                }
                locations.put(part.streamId, entries);
            }
            ByteBuffer index = WalObjectFormat.encodeIndex(locations);
            indexLength = index.remaining() - WalObjectFormat.LENGTH_PREFIX_BYTES;
            // The payloads go to the store from the chunks they were copied into on append: slices, no copy.
            WalObjectBody body = new WalObjectBody(index);
            try {
                for (StreamPart part : batch.streams.values()) {
                    for (PendingAppend a : part.appends) {
                        body.add(batch.payloads.chunk(a.slot), PayloadBuffer.offsetInChunk(a.slot), a.size());
                    }
                }
            } catch (RuntimeException e) {
                body.discard();
                throw e;
            }
            object = body.build();
        } catch (RuntimeException e) {
            LogException failure = new LogException("could not build WAL object " + key + ": " + e, e);
            batch.streams.values().forEach(part -> failPart(part.streamId, part.appends, failure));
            release(batch);
            return;
        } finally {
            // The body holds its own references to the chunks now (or nothing, if it was not built).
            batch.payloads.release();
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

        long objectSize = object.bytes().readableBytes();
        // Charged what its chunks occupy, not only its bytes: that is the memory the cache keeps.
        long charge = batch.payloads.capacity() + (objectSize - batch.payloads.size());
        CompletableFuture<Void> sent;
        try {
            sent = objects.put(key, object.store());
        } catch (RuntimeException e) {
            sent = CompletableFuture.failedFuture(e);
        }
        CompletableFuture<Void> put = sent.whenComplete((v, e) -> {
            if (e == null) {
                cache.put(key, object.bytes(), charge);
            }
            // The writer's reference: the object's memory is freed now unless the cache keeps it.
            object.bytes().release();
            release(batch);
        });
        List<CompletableFuture<Void>> commits = new ArrayList<>();
        boolean compact = batch.streams.size() == 1;
        for (StreamPart part : batch.streams.values()) {
            long streamId = part.streamId;
            List<PendingAppend> appends = part.appends;
            CompletableFuture<Void> done = previous.get(streamId)
                    .handle((v, e) -> null)
                    .thenCompose(ignored -> put.handle((v, e) -> e))
                    .thenCompose(putError -> {
                        if (putError != null) {
                            failPart(streamId, appends, unwrap(putError));
                            return DONE;
                        }
                        LogException earlier = earlierFailure(streamId, appends);
                        if (earlier != null) {
                            failPart(streamId, appends, earlier);
                            return DONE;
                        }
                        return commit(streamId, appends, key, objectSize, indexLength, compact);
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
        // the commits report to their appends; this only ends the flush.
        var unused = CompletableFuture.allOf(commits.toArray(CompletableFuture[]::new))
                .whenComplete((v, e) -> {
                    synchronized (lock) {
                        inFlight.remove(flushDone);
                    }
                    flushDone.complete(null);
                });
    }

    private CompletableFuture<Void> commit(
            long streamId,
            List<PendingAppend> appends,
            String objectKey,
            long objectSize,
            int indexLength,
            boolean compact) {
        int[] counts = new int[appends.size()];
        long records = 0;
        long bytes = 0;
        for (int i = 0; i < counts.length; i++) {
            counts[i] = appends.get(i).records;
            records += counts[i];
            bytes += appends.get(i).size();
        }
        IndexValue value = new IndexValue(
                objectKey,
                compact,
                records,
                bytes,
                // Ursa's meaning of file_size: the data section, without the length prefix and the index.
                FileSize.of(objectSize, WalObjectFormat.LENGTH_PREFIX_BYTES + indexLength),
                counts,
                Map.of(IndexValue.EXTRA_INDEX_LENGTH, Integer.toString(indexLength)));
        PartCommit part = new PartCommit(streamId, appends, objectKey, records, bytes, knownEnd(streamId));
        CompletableFuture<Void> done = new CompletableFuture<>();
        // the callback completes done either way.
        var unused = guard.beforeCommit(streamId).whenComplete((ok, refused) -> {
            if (refused != null) {
                // Refused before anything was sent: the record cannot land.
                failPart(streamId, appends, unwrap(refused));
                done.complete(null);
                return;
            }
            // the callback completes done either way.
            var unusedPut = metadata.put(
                            IndexKey.prefix(streamId),
                            value.encode(),
                            PutOptions.DEFAULT
                                    .partitionKey(IndexKey.partitionKey(streamId))
                                    .sequenceKeyDeltas(part.records, part.bytes))
                    .whenComplete((result, e) -> {
                        if (e == null) {
                            part.complete(result.key(), result.version().createdTimestamp());
                            done.complete(null);
                            return;
                        }
                        Throwable cause = unwrap(e);
                        if (cause instanceof MetadataStoreUnavailableException) {
                            log.warn(
                                    "Index commit of stream {} for WAL object {} has an unknown outcome ({}); its {}"
                                            + " append(s) wait until the metadata store answers whether it landed",
                                    streamId,
                                    objectKey,
                                    cause.toString(),
                                    appends.size());
                            resolve(part, cause, 0, done);
                        } else {
                            log.warn(
                                    "Index commit of stream {} for WAL object {} failed: {}",
                                    streamId,
                                    objectKey,
                                    cause.toString());
                            failPart(streamId, appends, cause);
                            done.complete(null);
                        }
                    });
        });
        return done;
    }

    /**
     * Settles a commit whose answer was lost (a timeout, the store unreachable or restarted): the put may have been
     * applied all the same, and failing its appends would let a caller store them again (with Pulsar's
     * deduplication on, a resend the broker takes for new). So once the store answers again, a barrier write on the
     * stream's shard (a delete of a key never written) orders this check after every write the shard accepted
     * before, and a scan of the stream's index from its last known end looks for the record naming this object:
     * found, the appends succeed late at the offsets the record holds; absent, they fail and cannot land later.
     * Retried with backoff until the store answers; if the writer closes first, the appends fail as unknown. Not
     * {@code RetryPolicy}: this retries without bound (an unknown outcome must not be guessed), stopping on close.
     */
    private void resolve(PartCommit part, Throwable firstCause, int attempt, CompletableFuture<Void> done) {
        String partition = IndexKey.partitionKey(part.streamId);
        // the callback completes done either way.
        var unused = metadata.delete(
                        IndexKey.commitBarrierKey(part.streamId), DeleteOptions.DEFAULT.partitionKey(partition))
                .thenCompose(ignored -> findRecordOf(part, IndexKey.coveringSearchKey(part.streamId, part.knownEnd)))
                .whenComplete((found, e) -> {
                    if (e == null) {
                        if (found.isPresent()) {
                            log.info(
                                    "Index commit of stream {} for WAL object {} landed after all (at {}): its {}"
                                            + " append(s) succeed",
                                    part.streamId,
                                    part.objectKey,
                                    found.get().key(),
                                    part.appends.size());
                            part.complete(
                                    found.get().key(), found.get().version().createdTimestamp());
                        } else {
                            log.warn(
                                    "Index commit of stream {} for WAL object {} did not land: its {} append(s) fail",
                                    part.streamId,
                                    part.objectKey,
                                    part.appends.size());
                            failPart(
                                    part.streamId,
                                    part.appends,
                                    new LogException(
                                            "index commit of stream "
                                                    + part.streamId + " for WAL object " + part.objectKey
                                                    + " did not land (checked"
                                                    + " once the metadata store " + metadata.address()
                                                    + " answered again): "
                                                    + firstCause,
                                            firstCause));
                        }
                        done.complete(null);
                        return;
                    }
                    boolean closing;
                    synchronized (lock) {
                        closing = closed;
                    }
                    if (closing) {
                        failPart(
                                part.streamId,
                                part.appends,
                                new LogException(
                                        "index commit of stream "
                                                + part.streamId + " for WAL object " + part.objectKey
                                                + " has an unknown outcome: the"
                                                + " writer closed before the metadata store " + metadata.address()
                                                + " answered whether it landed (" + unwrap(e) + ")",
                                        firstCause));
                        done.complete(null);
                        return;
                    }
                    long delayMs = Math.min(RESOLVE_MAX_DELAY_MS, RESOLVE_FIRST_DELAY_MS << Math.min(attempt, 4));
                    // a retry timer: resolve completes done either way.
                    var unusedRetry = scheduler.schedule(
                            () -> resolve(part, firstCause, attempt + 1, done), delayMs, TimeUnit.MILLISECONDS);
                });
    }

    /** The stream's index record naming {@code part}'s object, scanning from {@code from} page by page. */
    private CompletableFuture<Optional<Record>> findRecordOf(PartCommit part, String from) {
        return metadata.rangeScan(
                        from,
                        IndexKey.highest(part.streamId),
                        Optional.of(IndexKey.partitionKey(part.streamId)),
                        RESOLVE_SCAN_PAGE)
                .thenCompose(records -> {
                    for (Record r : records) {
                        if (IndexKey.belongsTo(r.key(), part.streamId)
                                && IndexValue.decode(r.value(), r.key())
                                        .location()
                                        .equals(part.objectKey)) {
                            return CompletableFuture.completedFuture(Optional.of(r));
                        }
                    }
                    if (records.size() < RESOLVE_SCAN_PAGE) {
                        return CompletableFuture.completedFuture(Optional.<Record>empty());
                    }
                    // Past the last key seen: index keys have one length, so no key lies between it and it + "0".
                    return findRecordOf(part, records.get(records.size() - 1).key() + "0");
                });
    }

    /**
     * Fails one stream's appends and marks every append of the stream accepted before now as failed too: a
     * caller that sees this failure must never find a later append of the stream stored (a log's writer fails
     * everything behind a failed write and resends it, as Pulsar's managed ledger does).
     */
    private void failPart(long streamId, List<PendingAppend> appends, Throwable cause) {
        synchronized (lock) {
            failedBefore.put(streamId, new StreamFailure(nextAppendSeq, cause));
        }
        appends.forEach(a -> a.fail(cause));
    }

    /**
     * The failure of an append of the stream accepted before the first of {@code appends}, if one failed since;
     * they must fail too. Appends reach this check in the order they were accepted, so once a part passes it the
     * stream's mark can go.
     */
    private LogException earlierFailure(long streamId, List<PendingAppend> appends) {
        synchronized (lock) {
            StreamFailure failure = failedBefore.get(streamId);
            if (failure == null) {
                return null;
            }
            if (appends.get(0).seq < failure.acceptedBefore()) {
                return new LogException(
                        "append to stream " + streamId + " not committed: an append to the stream"
                                + " accepted before it failed (" + failure.cause() + ")",
                        failure.cause());
            }
            failedBefore.remove(streamId);
            return null;
        }
    }

    private long knownEnd(long streamId) {
        synchronized (lock) {
            return committedEnds.getOrDefault(streamId, 0L);
        }
    }

    /** A failure of a stream's appends: appends accepted before {@code acceptedBefore} fail with it. */
    private record StreamFailure(long acceptedBefore, Throwable cause) {}

    /** One stream's share of a stored object, being committed to its index. */
    private final class PartCommit {
        final long streamId;
        final List<PendingAppend> appends;
        final String objectKey;
        final long records;
        final long bytes;
        /** The stream's end offset as this writer last saw it (0 if never): the record cannot end at or below it. */
        final long knownEnd;

        PartCommit(
                long streamId, List<PendingAppend> appends, String objectKey, long records, long bytes, long knownEnd) {
            this.streamId = streamId;
            this.appends = appends;
            this.objectKey = objectKey;
            this.records = records;
            this.bytes = bytes;
            this.knownEnd = knownEnd;
        }

        /** Completes the appends at the offsets of the index record the store assigned. */
        void complete(String indexKey, long timestamp) {
            IndexKey key = IndexKey.parse(indexKey);
            long offset = key.endOffset() - records;
            long cumulative = key.cumulativeSize() - bytes;
            synchronized (lock) {
                committedEnds.merge(streamId, key.endOffset(), Math::max);
            }
            for (PendingAppend a : appends) {
                cumulative += a.size();
                a.result.complete(new AppendResult(streamId, offset, a.records, timestamp, cumulative));
                offset += a.records;
            }
            listener.committed(streamId, key.endOffset());
        }
    }

    /**
     * Returns a stored (or failed) batch's bytes to the budget, admits waiting appends that now fit, and lets
     * the open batch be flushed if this was the last batch being stored.
     */
    private void release(Batch batch) {
        synchronized (lock) {
            if (batch.released) {
                return;
            }
            batch.released = true;
            pendingBytes -= batch.payloads.size();
            unstoredBatches--;
            while (!waiting.isEmpty() && hasRoomFor(waiting.peek().size())) {
                PendingAppend next = waiting.poll();
                admitOrFail(next, next.payload);
                next.releasePayload();
            }
            armEarlyFlush();
        }
    }

    private static LogException unreadablePayload(PendingAppend append, RuntimeException e) {
        return new LogException(
                "could not read the payload of an append to stream " + append.streamId
                        + " (was it released before append returned?): " + e,
                e);
    }

    private static Throwable unwrap(Throwable e) {
        return e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
    }

    /** Appends gathered for one object, grouped by stream in arrival order. */
    private static final class Batch {
        final LinkedHashMap<Long, StreamPart> streams = new LinkedHashMap<>();
        /** Released once its object's body is built (the body keeps its own references to the chunks). */
        final PayloadBuffer payloads;

        private final int appendsPerStream;
        int appends;
        /** The part appended to last: consecutive appends to one stream skip the map lookup. */
        private StreamPart last;

        boolean released;
        /** When its first append came, for the linger. */
        final long openedNanos;
        /** Whether its early flush has been scheduled (or done). */
        boolean earlyFlushArmed;

        Batch(ByteBufAllocator allocator, int appendsPerStream, long openedNanos) {
            this.payloads = new PayloadBuffer(allocator, FIRST_CHUNK_BYTES, CHUNK_BYTES);
            this.appendsPerStream = appendsPerStream;
            this.openedNanos = openedNanos;
        }

        /** Copies the payload in; if it cannot be read, throws and leaves the batch as it was. */
        void add(PendingAppend a, ByteBuf payload) {
            StreamPart part = last != null && last.streamId == a.streamId ? last : streams.get(a.streamId);
            boolean created = part == null;
            if (created) {
                part = new StreamPart(a.streamId, appendsPerStream);
            }
            a.slot = payloads.write(payload);
            if (created) {
                streams.put(a.streamId, part);
            }
            part.appends.add(a);
            last = part;
            appends++;
        }
    }

    /** One stream's share of a batch: its appends, in append order. */
    private static final class StreamPart {
        final long streamId;
        final List<PendingAppend> appends;

        StreamPart(long streamId, int expectedAppends) {
            this.streamId = streamId;
            this.appends = new ArrayList<>(expectedAppends);
        }
    }

    private static final class PendingAppend {
        final long streamId;
        final int records;
        final int size;
        final CompletableFuture<AppendResult> result = new CompletableFuture<>();
        /** Held (retained) only while the append waits for room; null once copied or failed. */
        ByteBuf payload;
        /** Where its bytes are in its batch's {@link PayloadBuffer}, once admitted. */
        long slot;
        /** Its place in the writer's admission order (see {@code failedBefore}). */
        long seq;

        PendingAppend(long streamId, int records, int size) {
            this.streamId = streamId;
            this.records = records;
            this.size = size;
        }

        int size() {
            return size;
        }

        void fail(Throwable e) {
            releasePayload();
            result.completeExceptionally(e);
        }

        void releasePayload() {
            ByteBuf held = payload;
            payload = null;
            if (held != null) {
                held.release();
            }
        }
    }
}
