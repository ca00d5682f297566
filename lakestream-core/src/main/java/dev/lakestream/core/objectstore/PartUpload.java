package dev.lakestream.core.objectstore;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The buffering of an {@link ObjectUpload}: writes fill a part buffer of up to {@code partBytes}; a full part is
 * sealed and sent ({@link #sendPart}) after the ones before it, one at a time, in order. {@link #ready()} completes
 * once at most one sealed part is still unacknowledged, so a writer that waits for it holds about two parts, plus what
 * it writes between two waits. An object that never fills a part is stored in one {@link #putWhole} at complete.
 *
 * <p>A failed part fails the upload: later writes are dropped, {@link #ready()} and {@link #complete()} fail with the
 * part's error, and {@link #discard()} runs once the part in flight is done. The hooks are called one at a time, never
 * concurrently (each after the previous one's future completed).
 */
public abstract class PartUpload implements ObjectUpload {

    private static final Logger LOG = LoggerFactory.getLogger(PartUpload.class);

    /** The first part buffer's size; it doubles up to the part size, so a small object does not take a whole part. */
    static final int FIRST_BUFFER_BYTES = 64 << 10;

    private final String key;
    private final int partBytes;

    /** The part being filled; null before the first write and after complete or abort. */
    private ByteBuffer filling;
    /** Parts sealed so far (the next part's number is this plus one). */
    private int sealed;
    /** Sealed parts not yet acknowledged. */
    private int pending;

    private long pendingBytes;
    private long length;
    private long peak;
    private boolean ended;
    private Throwable failure;
    /** The last part sent (or the start): the next hook runs after it. */
    private CompletableFuture<Void> chain = CompletableFuture.completedFuture(null);
    /** Completed when {@link #pending} drops to at most one, or the upload fails; null while nobody waits. */
    private CompletableFuture<Void> waiter;

    protected PartUpload(String key, int partBytes) {
        if (partBytes < 1) {
            throw new IllegalArgumentException("upload parts need a positive size, not " + partBytes);
        }
        this.key = key;
        this.partBytes = partBytes;
    }

    /** Stores part {@code number} (1, 2, ...; every one but the last is {@code partBytes} long). */
    protected abstract CompletableFuture<Void> sendPart(int number, ByteBuffer part);

    /** Makes the object of the {@code parts} parts sent visible under the key. */
    protected abstract CompletableFuture<Void> commit(int parts);

    /** Stores an object that fits in one part, none of which has been sent, in one write. */
    protected abstract CompletableFuture<Void> putWhole(ByteBuffer bytes);

    /** Discards the parts sent so far (if any); best effort. */
    protected abstract CompletableFuture<Void> discard();

    @Override
    public final String key() {
        return key;
    }

    @Override
    public final synchronized void write(ByteBuffer data) {
        if (ended) {
            throw new IllegalStateException("upload of " + ObjectKeys.printable(key) + " is "
                    + (failure == null ? "ended" : "failed") + ": no more writes");
        }
        ByteBuffer in = data.duplicate();
        length += in.remaining();
        while (in.hasRemaining()) {
            if (failure != null) {
                return; // dropped: ready() and complete() report the failure
            }
            if (filling == null || !filling.hasRemaining()) {
                if (filling != null && filling.capacity() < partBytes) {
                    filling = grown(filling);
                } else {
                    if (filling != null) {
                        seal();
                    }
                    // Only the first part starts small (the object may be small); once one part is full, the object
                    // is large and each further part is allocated whole: growing one by doubling made four large
                    // arrays per part, and copies (large arrays are what G1 allocates as humongous, each a GC trigger).
                    filling = ByteBuffer.allocate(sealed == 0 ? Math.min(FIRST_BUFFER_BYTES, partBytes) : partBytes);
                }
            }
            int n = Math.min(in.remaining(), filling.remaining());
            filling.put(in.slice(in.position(), n));
            in.position(in.position() + n);
            peak = Math.max(peak, bufferedBytes());
        }
    }

    private ByteBuffer grown(ByteBuffer full) {
        ByteBuffer bigger = ByteBuffer.allocate((int) Math.min(partBytes, 2L * full.capacity()));
        return bigger.put(full.flip());
    }

    /** Sends the filled part after the ones before it. */
    private void seal() {
        ByteBuffer part = filling.flip();
        filling = null;
        int number = ++sealed;
        long size = part.remaining();
        pending++;
        pendingBytes += size;
        chain = chain.thenCompose(v -> sendPart(number, part)).whenComplete((v, e) -> acknowledged(size, e));
    }

    private void acknowledged(long size, Throwable error) {
        CompletableFuture<Void> wake = null;
        synchronized (this) {
            pending--;
            pendingBytes -= size;
            if (error != null && failure == null) {
                failure = error;
            }
            if (waiter != null && (pending <= 1 || failure != null)) {
                wake = waiter;
                waiter = null;
            }
        }
        if (wake != null) {
            complete(wake, failure);
        }
    }

    private static void complete(CompletableFuture<Void> f, Throwable error) {
        if (error == null) {
            f.complete(null);
        } else {
            f.completeExceptionally(error);
        }
    }

    @Override
    public final synchronized CompletableFuture<Void> ready() {
        if (failure != null) {
            return CompletableFuture.failedFuture(failure);
        }
        if (pending <= 1) {
            return CompletableFuture.completedFuture(null);
        }
        if (waiter == null) {
            waiter = new CompletableFuture<>();
        }
        return waiter;
    }

    @Override
    public final synchronized long length() {
        return length;
    }

    @Override
    public final synchronized long bufferedBytes() {
        return pendingBytes + (filling == null ? 0 : filling.position());
    }

    @Override
    public final synchronized long peakBufferedBytes() {
        return peak;
    }

    @Override
    public final CompletableFuture<Void> complete() {
        CompletableFuture<Void> stored;
        synchronized (this) {
            if (ended) {
                return CompletableFuture.failedFuture(
                        new IllegalStateException("upload of " + ObjectKeys.printable(key) + " is ended already"));
            }
            ended = true;
            ByteBuffer last = filling == null ? ByteBuffer.allocate(0) : filling.flip();
            filling = null;
            if (sealed == 0) {
                stored = putWhole(last);
            } else {
                int parts = sealed + (last.hasRemaining() ? 1 : 0);
                int number = sealed + 1;
                stored = chain.thenCompose(v -> {
                            Throwable failed = failure();
                            if (failed != null) {
                                return CompletableFuture.failedFuture(failed);
                            }
                            return last.hasRemaining()
                                    ? sendPart(number, last)
                                    : CompletableFuture.completedFuture(null);
                        })
                        .thenCompose(v -> commit(parts));
            }
        }
        // Whatever failed, nothing may stay behind: the parts sent are discarded before the caller hears of it.
        return stored.handle((v, e) -> e)
                .thenCompose(e -> e == null
                        ? CompletableFuture.<Void>completedFuture(null)
                        : discardQuietly().thenCompose(d -> CompletableFuture.<Void>failedFuture(e)));
    }

    private synchronized Throwable failure() {
        return failure;
    }

    @Override
    public final CompletableFuture<Void> abort() {
        CompletableFuture<Void> after;
        synchronized (this) {
            if (ended) {
                return CompletableFuture.completedFuture(null);
            }
            ended = true;
            filling = null;
            if (sealed == 0) {
                return CompletableFuture.completedFuture(null); // nothing sent: nothing to discard
            }
            after = chain;
        }
        return after.handle((v, e) -> null).thenCompose(v -> discardQuietly());
    }

    private CompletableFuture<Void> discardQuietly() {
        CompletableFuture<Void> d;
        try {
            d = discard();
        } catch (RuntimeException e) {
            d = CompletableFuture.failedFuture(e);
        }
        return d.handle((v, e) -> {
            if (e != null) {
                LOG.warn(
                        "Could not discard the parts of the upload of {}: {}", ObjectKeys.printable(key), e.toString());
            }
            return null;
        });
    }
}
