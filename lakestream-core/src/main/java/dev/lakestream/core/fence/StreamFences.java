package dev.lakestream.core.fence;

import dev.lakestream.core.concurrent.Futures;
import dev.lakestream.core.index.IndexKey;
import dev.lakestream.core.log.StreamFencedException;
import dev.lakestream.core.metadata.GetOptions;
import dev.lakestream.core.metadata.KeyAlreadyExistsException;
import dev.lakestream.core.metadata.MetadataStore;
import dev.lakestream.core.metadata.Notification;
import dev.lakestream.core.metadata.PutOptions;
import dev.lakestream.core.metadata.UnexpectedVersionException;
import dev.lakestream.core.wal.CommitGuard;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Write fences: who may commit appends to a stream.
 *
 * <p>Each stream has a durable epoch at {@code /lakestream/fences/<streamId>} (partition key: the stream
 * id; value: the epoch in decimal). A new owner calls {@link #fence(long)}, which raises the epoch by
 * compare-and-set and returns the new one; its writer then commits only while the stream's epoch is still
 * the one it holds. As a {@link CommitGuard} this class refuses the index commit of any stream whose
 * current epoch differs from the epoch this process holds for it, with {@link StreamFencedException}.
 *
 * <p>What a fence guarantees (see {@code docs/layout.md}, "several writers"): once {@code fence} has
 * completed, a writer holding an older epoch refuses every index commit it <em>starts</em> after it learns
 * of the new epoch: at once in the same process, and within the metadata store's notification delay in
 * another (each process keeps the epochs it holds fresh through change notifications). A commit the old
 * writer had already started may still land just after the fence; it lands at offsets after every offset
 * committed before, never overlapping (offsets come from sequence keys), so it is a valid entry of the
 * stream and never corrupts it. Appends the old writer acknowledged are therefore never lost.
 *
 * <p>Notifications alone leave a stale writer a window: a process paused past the takeover (a long GC, a frozen VM,
 * {@code SIGSTOP}) wakes up with requests buffered in its sockets and may commit them before the notification
 * reaches it. So a commit also reads the epoch from the store whenever this process's last reading of it is older
 * than a second ({@link #VERIFY_AFTER_NANOS}): a writer that wakes from a pause always reads first. What is
 * left is a pause between that read's answer and the commit itself.
 */
public final class StreamFences implements CommitGuard, AutoCloseable {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(StreamFences.class);

    private static final int CAS_ATTEMPTS = 10;
    /** How old the last reading of a stream's epoch may be before a commit reads it again. */
    static final long VERIFY_AFTER_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(1);

    private final MetadataStore metadata;
    private final String root;
    /** Epoch this process holds, per stream it writes. */
    private final Map<Long, Long> held = new ConcurrentHashMap<>();
    /** Latest epoch seen in the store, per stream held. */
    private final Map<Long, Long> current = new ConcurrentHashMap<>();
    /** When ({@link System#nanoTime()}) a commit last read the stream's epoch from the store, per stream held. */
    private final Map<Long, Long> verified = new ConcurrentHashMap<>();

    private final AutoCloseable subscription;

    public StreamFences(MetadataStore metadata, String root) {
        this.metadata = metadata;
        this.root = root;
        this.subscription = metadata.addListener(this::onChange);
    }

    public String key(long streamId) {
        return root + "/fences/" + streamId;
    }

    /**
     * Takes the stream over: raises its epoch and holds the new one. Writers holding older epochs, in this
     * process or another, are refused from then on.
     */
    public CompletableFuture<Long> fence(long streamId) {
        return fence(streamId, CAS_ATTEMPTS).thenApply(epoch -> {
            held.put(streamId, epoch);
            current.merge(streamId, epoch, Math::max);
            verified.put(streamId, System.nanoTime());
            return epoch;
        });
    }

    private CompletableFuture<Long> fence(long streamId, int attemptsLeft) {
        String pk = IndexKey.partitionKey(streamId);
        return metadata.get(key(streamId), GetOptions.DEFAULT.partitionKey(pk)).thenCompose(r -> {
            long epoch = r.map(rec -> parse(rec.value())).orElse(0L) + 1;
            PutOptions options = r.map(rec -> PutOptions.ifVersion(rec.version().versionId()))
                    .orElse(PutOptions.ifAbsent())
                    .partitionKey(pk);
            return metadata.put(key(streamId), Long.toString(epoch).getBytes(StandardCharsets.UTF_8), options)
                    .thenApply(p -> epoch)
                    .exceptionallyCompose(e -> {
                        Throwable c = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
                        if ((c instanceof UnexpectedVersionException || c instanceof KeyAlreadyExistsException)
                                && attemptsLeft > 1) {
                            return fence(streamId, attemptsLeft - 1);
                        }
                        return CompletableFuture.failedFuture(c);
                    });
        });
    }

    /** Stops holding the stream (e.g. the owner closed it); commits to it are no longer checked. */
    public void release(long streamId) {
        held.remove(streamId);
        current.remove(streamId);
        verified.remove(streamId);
    }

    /** The epoch this process holds for the stream, or 0 when it holds none. */
    public long heldEpoch(long streamId) {
        return held.getOrDefault(streamId, 0L);
    }

    @Override
    public CompletableFuture<Void> beforeCommit(long streamId) {
        Long mine = held.get(streamId);
        if (mine == null) {
            return CompletableFuture.completedFuture(null);
        }
        long now = System.nanoTime();
        Long verifiedAt = verified.get(streamId);
        if (verifiedAt != null && now - verifiedAt < VERIFY_AFTER_NANOS) {
            return check(streamId, mine);
        }
        // Notifications may be late or lost after this process was paused (a long GC, SIGSTOP, a frozen VM) or cut
        // off from the store: read the epoch itself before committing when the last reading is older than that.
        // The monotonic clock runs on while a process is paused, so a writer that wakes up always reads.
        return metadata.get(key(streamId), GetOptions.DEFAULT.partitionKey(IndexKey.partitionKey(streamId)))
                .thenCompose(r -> {
                    r.ifPresent(rec -> current.merge(streamId, parse(rec.value()), Math::max));
                    verified.merge(streamId, now, Math::max);
                    return check(streamId, mine);
                });
    }

    private CompletableFuture<Void> check(long streamId, long mine) {
        long latest = current.getOrDefault(streamId, mine);
        if (latest != mine) {
            return CompletableFuture.failedFuture(new StreamFencedException(
                    "stream " + streamId + " was fenced: its epoch is " + latest + ", this writer holds " + mine));
        }
        return CompletableFuture.completedFuture(null);
    }

    private void onChange(Notification n) {
        String prefix = root + "/fences/";
        String key = switch (n) {
            case Notification.KeyCreated c -> c.key();
            case Notification.KeyModified m -> m.key();
            default -> null;
        };
        if (key == null || !key.startsWith(prefix)) {
            return;
        }
        long streamId;
        try {
            streamId = Long.parseLong(key.substring(prefix.length()));
        } catch (NumberFormatException e) {
            return;
        }
        if (!held.containsKey(streamId)) {
            return;
        }
        Futures.logFailure(
                metadata.get(key, GetOptions.DEFAULT.partitionKey(IndexKey.partitionKey(streamId)))
                        .thenAccept(r -> r.ifPresent(rec -> current.merge(streamId, parse(rec.value()), Math::max))),
                LOG,
                "Reading the fence " + key + " of stream " + streamId);
    }

    private static long parse(byte[] value) {
        return Long.parseLong(new String(value, StandardCharsets.UTF_8).trim());
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
