package dev.lakestream.core.wal;

import dev.lakestream.core.collect.LruMap;
import dev.lakestream.core.index.IndexKey;
import dev.lakestream.core.index.IndexValue;
import dev.lakestream.core.log.AppendResult;
import dev.lakestream.core.log.LogException;
import dev.lakestream.core.metadata.MetadataStore;
import dev.lakestream.core.metadata.MetadataStoreUnavailableException;
import dev.lakestream.core.metadata.PutOptions;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits each stream's share of a stored WAL object to the stream's offset index, and completes its appends.
 *
 * <p>The index record is one sequence-key put on the stream's prefix with deltas {@code [records, bytes]}: the store
 * assigns the offsets and writes the index entry in the same linearizable write, so several writers on one stream
 * never overlap. Each stream's commits are chained in the order their objects were handed over, so one stream's
 * completions arrive in append order even when a later object is stored first. A failed PUT fails every append of
 * that object; a failed commit fails only that stream's appends of the object, and every append of the stream
 * accepted before the failure (see {@link #failAppends}). A commit whose answer was lost is settled by the
 * {@link LostCommitResolver} before its appends complete.
 *
 * <p>Owns the commit chains, the streams' failure marks and their last known ends, under its own lock (never held
 * while calling out).
 */
final class IndexCommitter {

    private static final Logger log = LoggerFactory.getLogger(IndexCommitter.class);
    private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);
    /** Streams whose last commit end is remembered (LRU); a stream forgotten is scanned from its start. */
    private static final int MAX_KNOWN_ENDS = 1 << 16;

    private final MetadataStore metadata;
    private final CommitGuard guard;
    private final CommitListener listener;
    private final LostCommitResolver resolver;
    /** How many appends the writer has accepted so far: the admission order's next {@link PendingAppend#seq}. */
    private final LongSupplier acceptedSoFar;

    private final Object lock = new Object();
    /** Per stream, the end of its commit chain: done once its last handed-over object's commit has settled. */
    private final Map<Long, CompletableFuture<Void>> commitTails = new HashMap<>();
    /** Per stream, the last failure of its appends while appends accepted before it may still be pending. */
    private final Map<Long, StreamFailure> failedBefore = new HashMap<>();
    /** Per stream, the end offset of its last commit by this writer: where a lost commit's record is looked for. */
    private final Map<Long, Long> committedEnds = new LruMap<>(MAX_KNOWN_ENDS);

    IndexCommitter(
            MetadataStore metadata,
            CommitGuard guard,
            CommitListener listener,
            LostCommitResolver resolver,
            LongSupplier acceptedSoFar) {
        this.metadata = metadata;
        this.guard = guard;
        this.listener = listener;
        this.resolver = resolver;
        this.acceptedSoFar = acceptedSoFar;
    }

    /**
     * Takes each stream's place in its commit chain now, then commits the streams' shares of the object once
     * {@code stored} (its PUT) completes and the stream's previous commit has settled. Called from one thread, in
     * flush order, before the PUT is sent: that order is the order of each stream's commits.
     *
     * @param stored completes when the object is stored, or fails with why it was not (failing all of {@code parts})
     * @return completes once every part's commit has settled (its appends completed or failed)
     */
    CompletableFuture<Void> commitOnceStored(
            Collection<StreamPart> parts,
            CompletableFuture<Void> stored,
            String objectKey,
            long objectSize,
            int indexLength) {
        List<CompletableFuture<Void>> previous = new ArrayList<>(parts.size());
        List<CompletableFuture<Void>> mine = new ArrayList<>(parts.size());
        synchronized (lock) {
            for (StreamPart part : parts) {
                CompletableFuture<Void> tail = new CompletableFuture<>();
                previous.add(commitTails.getOrDefault(part.streamId(), DONE));
                commitTails.put(part.streamId(), tail);
                mine.add(tail);
            }
        }
        List<CompletableFuture<Void>> commits = new ArrayList<>(parts.size());
        boolean compact = parts.size() == 1;
        int i = 0;
        for (StreamPart part : parts) {
            long streamId = part.streamId();
            List<PendingAppend> appends = part.appends();
            CompletableFuture<Void> tail = mine.get(i);
            CompletableFuture<Void> done = previous.get(i)
                    .handle((v, e) -> null)
                    .thenCompose(ignored -> stored.handle((v, e) -> e))
                    .thenCompose(putError -> {
                        if (putError != null) {
                            failAppends(streamId, appends, unwrap(putError));
                            return DONE;
                        }
                        LogException earlier = earlierFailure(streamId, appends);
                        if (earlier != null) {
                            failAppends(streamId, appends, earlier);
                            return DONE;
                        }
                        return commit(streamId, appends, objectKey, objectSize, indexLength, compact);
                    })
                    .whenComplete((v, e) -> {
                        synchronized (lock) {
                            commitTails.remove(streamId, tail);
                        }
                        tail.complete(null);
                    });
            commits.add(done);
            i++;
        }
        return CompletableFuture.allOf(commits.toArray(CompletableFuture[]::new));
    }

    /**
     * Fails one stream's appends and marks every append of the stream accepted before now as failed too: a
     * caller that sees this failure must never find a later append of the stream stored (a log's writer fails
     * everything behind a failed write and resends it, as Pulsar's managed ledger does).
     */
    void failAppends(long streamId, List<PendingAppend> appends, Throwable cause) {
        long acceptedBefore = acceptedSoFar.getAsLong();
        synchronized (lock) {
            failedBefore.put(streamId, new StreamFailure(acceptedBefore, cause));
        }
        appends.forEach(a -> a.fail(cause));
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
            counts[i] = appends.get(i).records();
            records += counts[i];
            bytes += appends.get(i).size();
        }
        long recordCount = records;
        long byteCount = bytes;
        PartCommit part = new PartCommit(streamId, appends, objectKey, records, bytes, knownEnd(streamId));
        CompletableFuture<Void> done = new CompletableFuture<>();
        // the callback completes done either way.
        var unused = guard.beforeCommit(streamId).whenComplete((ticket, refused) -> {
            if (refused != null || ticket == null) {
                // Refused before anything was sent: the record cannot land.
                failAppends(
                        streamId,
                        appends,
                        refused != null
                                ? unwrap(refused)
                                : new IllegalStateException(
                                        "the commit guard of stream " + streamId + " answered without a ticket"));
                done.complete(null);
                return;
            }
            Map<String, String> extra = ticket.epoch() == 0
                    ? Map.of(IndexValue.EXTRA_INDEX_LENGTH, Integer.toString(indexLength))
                    : Map.of(
                            IndexValue.EXTRA_INDEX_LENGTH,
                            Integer.toString(indexLength),
                            IndexValue.EXTRA_EPOCH,
                            Long.toString(ticket.epoch()));
            IndexValue value = new IndexValue(
                    objectKey,
                    compact,
                    recordCount,
                    byteCount,
                    // Ursa's meaning of file_size: the data section, without the length prefix and the index.
                    FileSize.of(objectSize, WalObjectFormat.LENGTH_PREFIX_BYTES + indexLength),
                    counts,
                    extra);
            // the callback completes done either way.
            var unusedPut = metadata.put(
                            IndexKey.prefix(streamId),
                            value.encode(),
                            PutOptions.DEFAULT
                                    .partitionKey(IndexKey.partitionKey(streamId))
                                    .sequenceKeyDeltas(part.records(), part.bytes()))
                    .whenComplete((result, e) -> {
                        if (e == null) {
                            completeIfValid(
                                    part, ticket, result.key(), result.version().createdTimestamp(), done);
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
                            settleLost(part, ticket, cause, done);
                        } else {
                            log.warn(
                                    "Index commit of stream {} for WAL object {} failed: {}",
                                    streamId,
                                    objectKey,
                                    cause.toString());
                            failAppends(streamId, appends, cause);
                            done.complete(null);
                        }
                    });
        });
        return done;
    }

    /** Completes or fails a lost commit's appends as the resolver finds, then {@code done}. */
    private void settleLost(PartCommit part, CommitGuard.Ticket ticket, Throwable cause, CompletableFuture<Void> done) {
        // the callback completes done either way.
        var unused = resolver.resolve(part, cause).whenComplete((found, failure) -> {
            if (failure == null) {
                completeIfValid(part, ticket, found.key(), found.version().createdTimestamp(), done);
            } else {
                failAppends(part.streamId(), part.appends(), failure);
                done.complete(null);
            }
        });
    }

    /**
     * Completes a landed record's appends once the guard lets them be acknowledged (a record of a stale owner that
     * landed after a newer owner's seal is void: its appends fail), then {@code done}.
     */
    private void completeIfValid(
            PartCommit part, CommitGuard.Ticket ticket, String indexKey, long timestamp, CompletableFuture<Void> done) {
        long start = IndexKey.parse(indexKey).endOffset() - part.records();
        // the callback completes done either way.
        var unused = guard.afterCommit(part.streamId(), ticket, start).whenComplete((ok, refused) -> {
            if (refused == null) {
                complete(part, indexKey, timestamp);
            } else {
                log.warn(
                        "Index commit of stream {} for WAL object {} landed at offset {} but is not acknowledged: {}",
                        part.streamId(),
                        part.objectKey(),
                        start,
                        unwrap(refused).toString());
                failAppends(part.streamId(), part.appends(), unwrap(refused));
            }
            done.complete(null);
        });
    }

    /** Completes a part's appends at the offsets of the index record the store assigned. */
    private void complete(PartCommit part, String indexKey, long timestamp) {
        IndexKey key = IndexKey.parse(indexKey);
        long offset = key.endOffset() - part.records();
        long cumulative = key.cumulativeSize() - part.bytes();
        synchronized (lock) {
            committedEnds.merge(part.streamId(), key.endOffset(), Math::max);
        }
        for (PendingAppend a : part.appends()) {
            cumulative += a.size();
            a.result().complete(new AppendResult(part.streamId(), offset, a.records(), timestamp, cumulative));
            offset += a.records();
        }
        listener.committed(part.streamId(), key.endOffset());
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
            if (appends.get(0).seq() < failure.acceptedBefore()) {
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

    private static Throwable unwrap(Throwable e) {
        return e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
    }

    /** A failure of a stream's appends: appends accepted before {@code acceptedBefore} fail with it. */
    private record StreamFailure(long acceptedBefore, Throwable cause) {}
}
