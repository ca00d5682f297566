package dev.lakestream.core.fence;

import dev.lakestream.core.concurrent.Futures;
import dev.lakestream.core.index.IndexKey;
import dev.lakestream.core.index.OffsetIndex;
import dev.lakestream.core.index.VoidedRecords;
import dev.lakestream.core.log.StreamFencedException;
import dev.lakestream.core.metadata.GetOptions;
import dev.lakestream.core.metadata.KeyAlreadyExistsException;
import dev.lakestream.core.metadata.MetadataStore;
import dev.lakestream.core.metadata.Notification;
import dev.lakestream.core.metadata.PutOptions;
import dev.lakestream.core.metadata.Record;
import dev.lakestream.core.metadata.UnexpectedVersionException;
import dev.lakestream.core.wal.CommitGuard;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * Write fences: who may commit appends to a stream, and which stale commits are void (docs/layout.md, §5).
 *
 * <p>Each stream has a durable epoch at {@code /lakestream/fences/<streamId>} (partition key: the stream id; value:
 * {@link FenceValue}). A new owner calls {@link #fence(long)}: it raises the epoch by compare-and-set, waits
 * {@link #SEAL_DELAY_NANOS} unless the last owner released the stream cleanly, reads the stream's end and seals the
 * epoch at it ({@link EpochSeals}); its writer then commits only while the stream's epoch is still the one it holds,
 * and names the epoch in each index record. As a {@link CommitGuard} this class refuses the index commit of any stream
 * whose current epoch differs from the epoch this process holds for it, with {@link StreamFencedException}.
 *
 * <p>A process paused past the takeover (a long GC, a frozen VM, {@code SIGSTOP}) may wake with requests in its
 * sockets. A commit reads the epoch from the store whenever this process's last reading of it is older than
 * {@link #VERIFY_AFTER_NANOS}; a commit that still lands after a newer owner sealed the stream (a pause between that
 * reading and the put) is void for every reader, and its appends are not acknowledged: after the put, a commit whose
 * confirming reading is older than the seal delay reads the fence again ({@link #afterCommit}). One that is younger
 * landed before any newer owner's seal, which waits that long after raising the epoch.
 */
public final class StreamFences implements CommitGuard, AutoCloseable {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(StreamFences.class);

    private static final int CAS_ATTEMPTS = 10;
    /** How old the last reading of a stream's epoch may be before a commit reads it again. */
    static final long VERIFY_AFTER_NANOS = TimeUnit.SECONDS.toNanos(1);
    /**
     * How long a new owner waits between raising the epoch and reading the end it seals at, unless the last owner
     * released the stream: a commit of the old owner acknowledged without a second reading was confirmed less than
     * this before it landed, so it landed before the seal.
     */
    static final long SEAL_DELAY_NANOS = TimeUnit.SECONDS.toNanos(2);
    /** How often, and how many times, a commit's second reading waits for a newer owner's seal. */
    private static final long SEAL_WAIT_MILLIS = 250;

    private static final int SEAL_WAITS = 20;

    private final MetadataStore metadata;
    private final OffsetIndex index;
    private final EpochSeals seals;
    /** Epoch (and seal) this process holds, per stream it writes. */
    private final Map<Long, FenceValue> held = new ConcurrentHashMap<>();
    /** Latest epoch seen in the store, per stream held. */
    private final Map<Long, Long> current = new ConcurrentHashMap<>();
    /** When ({@link System#nanoTime()}) the last reading that confirmed the held epoch was sent, per stream held. */
    private final Map<Long, Long> verified = new ConcurrentHashMap<>();

    /** {@code <root>/fences/}: the keys whose changes concern the epochs held. */
    private final String fencesPrefix;

    private final AutoCloseable subscription;

    public StreamFences(MetadataStore metadata, String root) {
        this.metadata = metadata;
        this.fencesPrefix = root + "/fences/";
        this.index = new OffsetIndex(metadata);
        this.seals = new EpochSeals(metadata, root, held::get);
        this.subscription = metadata.addListener(this::onChange);
    }

    public String key(long streamId) {
        return seals.fenceKey(streamId);
    }

    /** The key an owner writes when it released the stream cleanly: the epoch it held. */
    String releasedKey(long streamId) {
        return key(streamId) + "/released";
    }

    /** Which index records are void, as readers must see them. */
    public VoidedRecords voidedRecords() {
        return seals;
    }

    /**
     * Takes the stream over: raises its epoch, seals it and holds the new epoch. Writers holding older epochs, in this
     * process or another, are refused from then on, and their commits that land after the seal are void.
     */
    public CompletableFuture<Long> fence(long streamId) {
        return raise(streamId, CAS_ATTEMPTS).thenCompose(raised -> seal(streamId, raised));
    }

    /** The fence record and the release record, read together before a raise. */
    private record FenceRead(Optional<Record> fence, Optional<Record> released) {}

    /** The epoch raised by compare-and-set, its record's version, whether to wait, and when it was confirmed. */
    private record Raised(long epoch, long versionId, boolean unclean, long sentAtNanos) {}

    private CompletableFuture<Raised> raise(long streamId, int attemptsLeft) {
        String pk = IndexKey.partitionKey(streamId);
        CompletableFuture<Optional<Record>> fence = metadata.get(key(streamId), GetOptions.DEFAULT.partitionKey(pk));
        CompletableFuture<Optional<Record>> released =
                metadata.get(releasedKey(streamId), GetOptions.DEFAULT.partitionKey(pk));
        return fence.thenCombine(released, FenceRead::new).thenCompose(read -> {
            Optional<Record> r = read.fence();
            Optional<Record> rel = read.released();
            FenceValue previous =
                    r.map(rec -> FenceValue.parse(rec.value(), key(streamId))).orElse(FenceValue.NONE);
            boolean cleanlyReleased = rel.isPresent()
                    && FenceValue.parseLong(rel.get().value(), releasedKey(streamId)) == previous.epoch();
            // The previous owner's seal gets its own key before the epoch moves on: a reader that sees a newer epoch
            // finds every older seal (EpochSeals).
            CompletableFuture<Void> keepSeal = previous.seal().isPresent()
                    ? seals.writeSealKey(
                            streamId, previous.epoch(), previous.seal().getAsLong())
                    : CompletableFuture.completedFuture(null);
            long epoch = previous.epoch() + 1;
            PutOptions options = r.map(rec -> PutOptions.ifVersion(rec.version().versionId()))
                    .orElse(PutOptions.ifAbsent())
                    .partitionKey(pk);
            return keepSeal.thenCompose(v -> {
                        long sentAt = System.nanoTime();
                        return metadata.put(
                                        key(streamId), new FenceValue(epoch, OptionalLong.empty()).encode(), options)
                                .thenApply(p -> new Raised(
                                        epoch, p.version().versionId(), r.isPresent() && !cleanlyReleased, sentAt));
                    })
                    .exceptionallyCompose(e -> {
                        Throwable c = Futures.unwrap(e);
                        if ((c instanceof UnexpectedVersionException || c instanceof KeyAlreadyExistsException)
                                && attemptsLeft > 1) {
                            return raise(streamId, attemptsLeft - 1);
                        }
                        return CompletableFuture.failedFuture(c);
                    });
        });
    }

    /**
     * Seals a raised epoch: waits the seal delay when the last owner may still commit, reads the stream's end and
     * records it with the epoch (by compare-and-set: a newer owner that raised the epoch meanwhile wins), then holds
     * the epoch.
     */
    private CompletableFuture<Long> seal(long streamId, Raised raised) {
        Executor afterDelay = raised.unclean()
                ? CompletableFuture.delayedExecutor(SEAL_DELAY_NANOS, TimeUnit.NANOSECONDS)
                : Runnable::run;
        return CompletableFuture.supplyAsync(() -> null, afterDelay)
                .thenCompose(v -> index.endOffset(streamId))
                .thenCompose(end -> {
                    FenceValue sealedAt = new FenceValue(raised.epoch(), OptionalLong.of(end));
                    return metadata.put(
                                    key(streamId),
                                    sealedAt.encode(),
                                    PutOptions.ifVersion(raised.versionId())
                                            .partitionKey(IndexKey.partitionKey(streamId)))
                            .thenApply(p -> sealedAt)
                            .exceptionallyCompose(e -> {
                                Throwable c = Futures.unwrap(e);
                                return CompletableFuture.failedFuture(
                                        c instanceof UnexpectedVersionException
                                                ? new StreamFencedException("stream " + streamId + " was fenced again"
                                                        + " while this process sealed its epoch " + raised.epoch())
                                                : c);
                            });
                })
                .thenApply(sealedAt -> {
                    held.put(streamId, sealedAt);
                    current.merge(streamId, sealedAt.epoch(), Math::max);
                    verified.put(streamId, raised.sentAtNanos());
                    LOG.debug(
                            "Stream {} fenced at epoch {}, sealed at offset {}{}",
                            streamId,
                            sealedAt.epoch(),
                            sealedAt.seal().getAsLong(),
                            raised.unclean() ? " after the seal delay" : "");
                    return sealedAt.epoch();
                });
    }

    /**
     * Stops holding the stream (its owner closed it, every append answered); commits to it are no longer checked.
     * Records the release, so the next owner need not wait the seal delay.
     */
    public void release(long streamId) {
        FenceValue was = held.remove(streamId);
        current.remove(streamId);
        verified.remove(streamId);
        if (was != null) {
            Futures.logFailure(
                    metadata.put(
                            releasedKey(streamId),
                            Long.toString(was.epoch()).getBytes(StandardCharsets.UTF_8),
                            PutOptions.DEFAULT.partitionKey(IndexKey.partitionKey(streamId))),
                    LOG,
                    "Recording the release of stream " + streamId + " at epoch " + was.epoch());
        }
    }

    @Override
    public CompletableFuture<Ticket> beforeCommit(long streamId) {
        FenceValue mine = held.get(streamId);
        if (mine == null) {
            return CompletableFuture.completedFuture(Ticket.UNFENCED);
        }
        long now = System.nanoTime();
        Long verifiedAt = verified.get(streamId);
        if (verifiedAt != null && now - verifiedAt < VERIFY_AFTER_NANOS) {
            return check(streamId, mine.epoch(), verifiedAt);
        }
        // Notifications may be late or lost after this process was paused (a long GC, SIGSTOP, a frozen VM) or cut
        // off from the store: read the epoch itself before committing when the last reading is older than that.
        // The monotonic clock runs on while a process is paused, so a writer that wakes up always reads.
        return seals.readFence(streamId).thenCompose(fence -> {
            current.merge(streamId, fence.epoch(), Math::max);
            verified.merge(streamId, now, Math::max);
            return check(streamId, mine.epoch(), now);
        });
    }

    private CompletableFuture<Ticket> check(long streamId, long mine, long confirmedAt) {
        long latest = current.getOrDefault(streamId, mine);
        if (latest != mine) {
            return CompletableFuture.failedFuture(new StreamFencedException(
                    "stream " + streamId + " was fenced: its epoch is " + latest + ", this writer holds " + mine));
        }
        return CompletableFuture.completedFuture(new Ticket(mine, confirmedAt));
    }

    /**
     * Lets a landed record's appends be acknowledged unless it may be void. One confirmed less than the seal delay
     * before now, by an epoch still held, landed before any newer owner sealed; any other reads the fence again and
     * is judged as readers judge it, waiting a little for a newer owner's seal.
     */
    @Override
    public CompletableFuture<Void> afterCommit(long streamId, Ticket ticket, long startOffset) {
        if (ticket.epoch() == 0) {
            return CompletableFuture.completedFuture(null);
        }
        FenceValue mine = held.get(streamId);
        if (mine != null
                && mine.epoch() == ticket.epoch()
                && System.nanoTime() - ticket.confirmedAtNanos() < SEAL_DELAY_NANOS) {
            return CompletableFuture.completedFuture(null);
        }
        return confirmLanded(streamId, ticket.epoch(), startOffset, SEAL_WAITS);
    }

    private CompletableFuture<Void> confirmLanded(long streamId, long epoch, long start, int waitsLeft) {
        return seals.readFence(streamId)
                .thenCompose(fence -> seals.isVoid(streamId, epoch, start, fence))
                .thenCompose(verdict -> {
                    if (verdict.isPresent() && !verdict.get()) {
                        return CompletableFuture.completedFuture(null);
                    }
                    if (verdict.isPresent() || waitsLeft <= 0) {
                        return CompletableFuture.failedFuture(new StreamFencedException("stream " + streamId
                                + ": the commit at offset " + start + " of epoch " + epoch + " landed after a newer"
                                + " owner "
                                + (verdict.isPresent()
                                        ? "sealed the stream: it is void"
                                        : "fenced it," + " and its seal did not come: it is not acknowledged")));
                    }
                    Executor later = CompletableFuture.delayedExecutor(SEAL_WAIT_MILLIS, TimeUnit.MILLISECONDS);
                    return CompletableFuture.supplyAsync(() -> null, later)
                            .thenCompose(v -> confirmLanded(streamId, epoch, start, waitsLeft - 1));
                });
    }

    private void onChange(Notification n) {
        String key = switch (n) {
            case Notification.KeyCreated c -> c.key();
            case Notification.KeyModified m -> m.key();
            default -> null;
        };
        if (key == null || !key.startsWith(fencesPrefix)) {
            return;
        }
        long streamId;
        try {
            streamId = Long.parseLong(key.substring(fencesPrefix.length()));
        } catch (NumberFormatException e) {
            return; // a seal or release key below a fence
        }
        if (!held.containsKey(streamId)) {
            return;
        }
        Futures.logFailure(
                seals.readFence(streamId).thenAccept(fence -> current.merge(streamId, fence.epoch(), Math::max)),
                LOG,
                "Reading the fence " + key + " of stream " + streamId);
    }

    @Override
    public void close() {
        try {
            subscription.close();
        } catch (Exception e) {
            // Closing a listener handle cannot fail in a way that matters here.
        }
    }
}
