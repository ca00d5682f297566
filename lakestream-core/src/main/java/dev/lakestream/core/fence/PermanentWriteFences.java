package dev.lakestream.core.fence;

import dev.lakestream.core.collect.LruMap;
import dev.lakestream.core.index.IndexKey;
import dev.lakestream.core.log.StreamWriteFencedException;
import dev.lakestream.core.metadata.GetOptions;
import dev.lakestream.core.metadata.KeyAlreadyExistsException;
import dev.lakestream.core.metadata.MetadataStore;
import dev.lakestream.core.metadata.Notification;
import dev.lakestream.core.metadata.PutOptions;
import dev.lakestream.core.wal.CommitGuard;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Permanent write fences, Ursa's: a stream whose record {@code /stream-write-fences/<streamId>} exists (top level, no
 * metadata root, partition key the stream id as for every key of the stream; any value) takes no more appends. Ursa
 * places it before it purges a stream and never removes it; this project places it too when it deletes a stream's
 * data ({@link #place}), so an Ursa writer stops as well. As a {@link CommitGuard} this class refuses the index commit
 * of a fenced stream with {@link StreamWriteFencedException}, naming the key.
 *
 * <h2>What it costs</h2>
 * No metadata-store read per append, nor per commit. What this process knows of a stream's fence is kept in memory,
 * per stream it writes: read from the store when the stream is acquired for writing ({@link #checkForWriting}, which
 * {@code StreamLog.fence()} calls) or, for a stream written without being acquired, before its first commit; then
 * kept fresh by the store's change notifications (a fence created anywhere reaches every process at once, so the
 * next commit is refused); and read again before a commit only when the last reading of that stream is older than
 * {@link StreamFences#VERIFY_AFTER_NANOS} (a second): at most one get per written stream per second, however many
 * appends and commits it has; a commit that makes it waits one round trip more. For a stream this process owns
 * ({@link StreamFences} holds an epoch for it, and reads it on the same once-a-second rule) the two guards are asked at
 * once ({@link CommitGuard#and}): a commit for which both reads are due waits for one round trip, not two. A get
 * before each commit would be exact, but would add a round trip to every commit's latency and a read to every index
 * write, on every stream, for a case (a stream deleted under a live writer) that happens once in a stream's life.
 *
 * <h2>The window, and why it is acceptable</h2>
 * Between the fence being written and this writer learning of it (the notification's delay: milliseconds; at most a
 * second and a read when notifications are late or lost, e.g. after a pause of this process), commits this writer
 * starts still land, and so does a commit already past its check when the fence is written. Each lands at offsets after
 * every earlier one (sequence keys), so it is a valid, acknowledged entry of the stream, and it is deleted with the
 * rest when the stream is purged: the deleter meant to delete the stream's data, acknowledged or not. Once a commit
 * has been refused, every later one of the stream is refused too (the fenced state is never cleared while the stream is
 * watched, and the writer also fails the appends accepted before a failed one that are still pending), so nothing is
 * acknowledged after a refusal. What the window can leave is a commit landing after the deleter has already purged the index: a stray index
 * record of a stream id that is never reused, not readable under any name; this project's garbage collection removes
 * the index leftovers of streams whose catalog record is gone or tombstoned. Ursa closes that window with ephemeral
 * write leases ({@code /stream-write-leases/<streamId>/}) that its deleter waits to drain; this project publishes none
 * (its writers are stopped by the fence itself, and own streams through epochs), see {@code docs/layout.md}.
 *
 * <p>A fence is never lifted: once seen, the stream is refused until this process stops watching it ({@link #forget},
 * when its owner releases it); acquiring it again reads the store again.
 */
public final class PermanentWriteFences implements CommitGuard, AutoCloseable {

    /** The prefix of every fence key, as Ursa names them. */
    public static final String PREFIX = "/stream-write-fences/";

    /** Streams watched at most (least recently committed forgotten first; a forgotten stream is read again). */
    private static final int MAX_WATCHED = 1 << 16;

    private static final byte[] NO_VALUE = new byte[0];
    private static final CompletableFuture<Void> ALLOWED = CompletableFuture.completedFuture(null);

    private final MetadataStore metadata;
    private final Map<Long, Watch> watched = new LruMap<>(MAX_WATCHED);
    private final AutoCloseable subscription;

    public PermanentWriteFences(MetadataStore metadata) {
        this.metadata = metadata;
        this.subscription = metadata.addListener(this::onChange);
    }

    /** {@code /stream-write-fences/<streamId>}. */
    public static String key(long streamId) {
        return PREFIX + streamId;
    }

    /**
     * Reads the stream's fence from the store, as a writer acquiring the stream does: fails with
     * {@link StreamWriteFencedException} if it exists, and watches the stream from now on either way.
     */
    public CompletableFuture<Void> checkForWriting(long streamId) {
        return read(streamId, watch(streamId), System.nanoTime());
    }

    /**
     * Places the stream's fence (if absent; an existing one, anyone's, is kept as it is): from now on no writer that
     * honours it, here, in another process of this project or in Ursa, commits to the stream. Permanent.
     */
    public CompletableFuture<Void> place(long streamId) {
        Watch w = watch(streamId);
        return place(metadata, streamId).thenRun(() -> w.fenced = true);
    }

    /**
     * Places the stream's fence in {@code metadata} if absent, for a process that writes no stream (garbage collection
     * finishing a delete): an empty value, created if absent, partition key the stream id.
     */
    public static CompletableFuture<Void> place(MetadataStore metadata, long streamId) {
        return metadata.put(
                        key(streamId), NO_VALUE, PutOptions.ifAbsent().partitionKey(IndexKey.partitionKey(streamId)))
                .handle((p, e) -> {
                    Throwable c = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
                    if (c != null && !(c instanceof KeyAlreadyExistsException)) {
                        throw new CompletionException(c);
                    }
                    return null;
                });
    }

    /** Stops watching the stream (its owner released it): a later commit or acquisition reads the store again. */
    public void forget(long streamId) {
        synchronized (watched) {
            watched.remove(streamId);
        }
    }

    /** Whether this process has seen the stream's fence (for tests and tools; no store read). */
    public boolean knownFenced(long streamId) {
        synchronized (watched) {
            Watch w = watched.get(streamId);
            return w != null && w.fenced;
        }
    }

    @Override
    public CompletableFuture<Ticket> beforeCommit(long streamId) {
        return check(streamId).thenApply(v -> Ticket.UNFENCED);
    }

    private CompletableFuture<Void> check(long streamId) {
        long now = System.nanoTime();
        Watch w = watch(streamId);
        if (w.fenced) {
            return CompletableFuture.failedFuture(refusal(streamId));
        }
        if (w.readAtNanos != Watch.NEVER && now - w.readAtNanos < StreamFences.VERIFY_AFTER_NANOS) {
            return ALLOWED;
        }
        // Never read (a stream written without being acquired), or the last reading is over a second old:
        // notifications may be late or lost after a pause of this process or a broken subscription.
        return read(streamId, w, now);
    }

    private Watch watch(long streamId) {
        synchronized (watched) {
            return watched.computeIfAbsent(streamId, id -> new Watch());
        }
    }

    /**
     * Reads the fence into {@code w} (registered before the read is sent: a fence written after the read was answered
     * reaches it as a notification, one written before is in the answer).
     */
    private CompletableFuture<Void> read(long streamId, Watch w, long sentAtNanos) {
        return metadata.get(key(streamId), GetOptions.DEFAULT.partitionKey(IndexKey.partitionKey(streamId)))
                .thenCompose(r -> {
                    if (r.isPresent()) {
                        w.fenced = true;
                    }
                    w.read(sentAtNanos);
                    return w.fenced ? CompletableFuture.failedFuture(refusal(streamId)) : ALLOWED;
                });
    }

    private void onChange(Notification n) {
        String key = switch (n) {
            case Notification.KeyCreated c -> c.key();
            case Notification.KeyModified m -> m.key();
            // A fence is permanent: a deletion (by hand) does not lift it for a stream watched; acquiring it again
            // does.
            default -> null;
        };
        if (key == null || !key.startsWith(PREFIX)) {
            return;
        }
        long streamId;
        try {
            streamId = Long.parseLong(key.substring(PREFIX.length()));
        } catch (NumberFormatException e) {
            return;
        }
        synchronized (watched) {
            // get, not computeIfAbsent: a stream not watched reads the store before its first commit anyway.
            Watch w = watched.get(streamId);
            if (w != null) {
                w.fenced = true;
            }
        }
    }

    private static StreamWriteFencedException refusal(long streamId) {
        String key = key(streamId);
        return new StreamWriteFencedException(
                streamId,
                key,
                "stream " + streamId + " is fenced for writing by " + key
                        + " (placed when the stream is deleted, by Ursa or by this project; permanent):"
                        + " its writes are refused; entries acknowledged before stay readable until it is purged");
    }

    @Override
    public void close() {
        try {
            subscription.close();
        } catch (Exception e) {
            // Closing a listener handle cannot fail in a way that matters here.
        }
    }

    /** What this process knows of one stream's fence. Only ever goes from open to fenced. */
    private static final class Watch {
        static final long NEVER = Long.MIN_VALUE;

        volatile boolean fenced;
        /** {@link System#nanoTime()} when the last read that answered was sent, or {@link #NEVER}. */
        volatile long readAtNanos = NEVER;

        synchronized void read(long sentAtNanos) {
            if (readAtNanos == NEVER || sentAtNanos - readAtNanos > 0) {
                readAtNanos = sentAtNanos;
            }
        }
    }
}
