package dev.lakestream.core.wal;

import dev.lakestream.core.index.IndexKey;
import dev.lakestream.core.index.IndexValue;
import dev.lakestream.core.log.LogException;
import dev.lakestream.core.metadata.DeleteOptions;
import dev.lakestream.core.metadata.MetadataStore;
import dev.lakestream.core.metadata.Record;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Settles an index commit whose answer was lost (a timeout, the store unreachable or restarted): the put may have
 * been applied all the same, and failing its appends would let a caller store them again (with Pulsar's
 * deduplication on, a resend the broker takes for new). So once the store answers again, a barrier write on the
 * stream's shard (a delete of a key never written) orders this check after every write the shard accepted before,
 * and a scan of the stream's index from its last known end looks for the record naming the commit's object.
 *
 * <p>Retried with backoff until the store answers; if the writer closes first, the outcome is reported unknown. Not
 * {@code RetryPolicy}: this retries without bound (an unknown outcome must not be guessed), stopping on close. Keeps
 * no state of its own between calls.
 */
final class LostCommitResolver {

    private static final Logger log = LoggerFactory.getLogger(LostCommitResolver.class);

    private static final long FIRST_DELAY_MS = 100;
    private static final long MAX_DELAY_MS = 1_000;
    private static final int SCAN_PAGE = 256;

    private final MetadataStore metadata;
    private final ScheduledExecutorService scheduler;
    /** Whether the writer is closing: then retries stop. */
    private final BooleanSupplier closing;

    LostCommitResolver(MetadataStore metadata, ScheduledExecutorService scheduler, BooleanSupplier closing) {
        this.metadata = metadata;
        this.scheduler = scheduler;
        this.closing = closing;
    }

    /**
     * Finds whether {@code part}'s commit landed.
     *
     * @param firstCause why its answer was lost
     * @return completes with the index record that holds the commit if it landed (its appends succeed at that
     *     record's offsets); else fails with a {@link LogException} saying why its appends fail: the commit did
     *     not land (so it never will), or the writer closed before the store answered
     */
    CompletableFuture<Record> resolve(PartCommit part, Throwable firstCause) {
        CompletableFuture<Record> verdict = new CompletableFuture<>();
        attempt(part, firstCause, 0, verdict);
        return verdict;
    }

    private void attempt(PartCommit part, Throwable firstCause, int attempt, CompletableFuture<Record> verdict) {
        String partition = IndexKey.partitionKey(part.streamId());
        // the callback completes verdict either way.
        var unused = metadata.delete(
                        IndexKey.commitBarrierKey(part.streamId()), DeleteOptions.DEFAULT.partitionKey(partition))
                .thenCompose(
                        ignored -> findRecordOf(part, IndexKey.coveringSearchKey(part.streamId(), part.knownEnd())))
                .whenComplete((found, e) -> {
                    if (e == null) {
                        if (found.isPresent()) {
                            log.info(
                                    "Index commit of stream {} for WAL object {} landed after all (at {}): its {}"
                                            + " append(s) succeed",
                                    part.streamId(),
                                    part.objectKey(),
                                    found.get().key(),
                                    part.appends().size());
                            verdict.complete(found.get());
                        } else {
                            log.warn(
                                    "Index commit of stream {} for WAL object {} did not land: its {} append(s) fail",
                                    part.streamId(),
                                    part.objectKey(),
                                    part.appends().size());
                            verdict.completeExceptionally(new LogException(
                                    "index commit of stream "
                                            + part.streamId() + " for WAL object " + part.objectKey()
                                            + " did not land (checked"
                                            + " once the metadata store " + metadata.address()
                                            + " answered again): "
                                            + firstCause,
                                    firstCause));
                        }
                        return;
                    }
                    if (closing.getAsBoolean()) {
                        verdict.completeExceptionally(new LogException(
                                "index commit of stream "
                                        + part.streamId() + " for WAL object " + part.objectKey()
                                        + " has an unknown outcome: the"
                                        + " writer closed before the metadata store " + metadata.address()
                                        + " answered whether it landed (" + unwrap(e) + ")",
                                firstCause));
                        return;
                    }
                    long delayMs = Math.min(MAX_DELAY_MS, FIRST_DELAY_MS << Math.min(attempt, 4));
                    // a retry timer: the attempt completes verdict either way.
                    var unusedRetry = scheduler.schedule(
                            () -> attempt(part, firstCause, attempt + 1, verdict), delayMs, TimeUnit.MILLISECONDS);
                });
    }

    /** The stream's index record naming {@code part}'s object, scanning from {@code from} page by page. */
    private CompletableFuture<Optional<Record>> findRecordOf(PartCommit part, String from) {
        return metadata.rangeScan(
                        from,
                        IndexKey.highest(part.streamId()),
                        Optional.of(IndexKey.partitionKey(part.streamId())),
                        SCAN_PAGE)
                .thenCompose(records -> {
                    for (Record r : records) {
                        if (IndexKey.belongsTo(r.key(), part.streamId())
                                && IndexValue.decode(r.value(), r.key())
                                        .location()
                                        .equals(part.objectKey())) {
                            return CompletableFuture.completedFuture(Optional.of(r));
                        }
                    }
                    if (records.size() < SCAN_PAGE) {
                        return CompletableFuture.completedFuture(Optional.<Record>empty());
                    }
                    // Past the last key seen: index keys have one length, so no key lies between it and it + "0".
                    return findRecordOf(part, records.get(records.size() - 1).key() + "0");
                });
    }

    private static Throwable unwrap(Throwable e) {
        return e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
    }
}
