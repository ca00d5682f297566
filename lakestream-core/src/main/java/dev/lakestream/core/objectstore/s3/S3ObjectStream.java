package dev.lakestream.core.objectstore.s3;

import dev.lakestream.core.objectstore.ObjectKeys;
import dev.lakestream.core.objectstore.ObjectStoreException;
import dev.lakestream.core.objectstore.ObjectStream;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;

/**
 * The body of one ranged GET, pulled as the reader asks: the SDK delivers it in small chunks, requested while a read is
 * pending (up to {@link #CHUNKS_AHEAD} at once) and not otherwise, so a reader that pauses holds the connection and no
 * more than those chunks beyond its read. A stream left without a read for {@code idle} is closed (its connection goes
 * back), a read that gets no bytes for {@code stall} fails and closes it, and a closed stream's reads fail: the reader
 * opens another at {@link #position()}.
 *
 * <p>State is guarded by this object's monitor; futures are completed outside it.
 */
final class S3ObjectStream implements ObjectStream, Subscriber<ByteBuffer> {

    /**
     * Chunks asked for at once while a read wants bytes: one at a time would cost an event-loop round trip per chunk
     * (the SDK's are 8 KiB); more than a read needs come into {@link #unread}, at most this many chunks.
     */
    private static final int CHUNKS_AHEAD = 16;

    private static final int CHUNK_GUESS = 8 << 10;

    private final String key;
    private final String location;
    private final long end;
    private final Duration idle;
    private final Duration stall;
    private final ScheduledExecutorService timer;
    private final Runnable onClose;

    /** Bytes to drop before the range starts (a store that ignored the Range header sends the whole object). */
    private long skip;

    private Subscription subscription;
    /** Chunks (or their ends) that came beyond the last read, for the next, oldest first. */
    private final ArrayDeque<ByteBuffer> unread = new ArrayDeque<>();
    /** Chunks asked for that have not come yet. */
    private long demand;

    private ByteBuffer target;
    private CompletableFuture<ByteBuffer> pending;
    private long position;
    private boolean ended;
    private String closedBecause;
    /** The next look at whether the stream is idle or its pending read stalled; one at a time. */
    private ScheduledFuture<?> watch;
    /** When the last read ended (for idleness) and when the last bytes came (for a stall). */
    private long lastUsedNanos = System.nanoTime();

    private long lastBytesNanos = lastUsedNanos;

    S3ObjectStream(
            String key,
            String location,
            long offset,
            long end,
            long skip,
            Duration idle,
            Duration stall,
            ScheduledExecutorService timer,
            Runnable onClose) {
        this.key = key;
        this.location = location;
        this.position = offset;
        this.end = end;
        this.skip = skip;
        this.idle = idle;
        this.stall = stall;
        this.timer = timer;
        this.onClose = onClose;
    }

    @Override
    public CompletableFuture<ByteBuffer> read(int length) {
        if (length < 1) {
            return CompletableFuture.failedFuture(new IllegalArgumentException("a read needs length >= 1: " + length));
        }
        CompletableFuture<ByteBuffer> f;
        ByteBuffer full = null;
        long request = 0;
        boolean bodyEnded = false;
        synchronized (this) {
            if (position >= end) {
                return CompletableFuture.completedFuture(ByteBuffer.allocate(0));
            }
            if (closedBecause != null) {
                return CompletableFuture.failedFuture(closed());
            }
            if (pending != null) {
                return CompletableFuture.failedFuture(new IllegalStateException(
                        "a read of the stream of " + ObjectKeys.printable(key) + " is pending"));
            }
            long n = Math.min(length, end - position); // > 0: position < end
            f = new CompletableFuture<>();
            pending = f;
            target = ByteBuffer.allocate((int) n);
            lastUsedNanos = System.nanoTime();
            lastBytesNanos = lastUsedNanos;
            scheduleWatch();
            while (target.hasRemaining() && !unread.isEmpty()) {
                take(unread.peek());
                if (!unread.peek().hasRemaining()) {
                    unread.poll();
                }
            }
            if (!target.hasRemaining()) {
                full = target;
                finishRead();
            } else if (ended) {
                bodyEnded = true;
            } else {
                request = askLocked(); // without a subscription yet, onSubscribe asks
            }
        }
        if (full != null) {
            f.complete(full.flip());
        } else if (request > 0) {
            subscription.request(request);
        } else if (bodyEnded) {
            onComplete(); // the body ended before this read: fails it
        }
        return f;
    }

    @Override
    public void onSubscribe(Subscription s) {
        boolean cancel;
        long request;
        synchronized (this) {
            cancel = closedBecause != null;
            subscription = s;
            request = askLocked();
        }
        if (cancel) {
            s.cancel();
        } else if (request > 0) {
            s.request(request);
        }
    }

    @Override
    public void onNext(ByteBuffer chunk) {
        CompletableFuture<ByteBuffer> done = null;
        ByteBuffer out = null;
        long more = 0;
        synchronized (this) {
            demand--;
            if (skip > 0) {
                int drop = (int) Math.min(skip, chunk.remaining());
                chunk.position(chunk.position() + drop);
                skip -= drop;
            }
            if (target == null) {
                if (closedBecause == null && chunk.hasRemaining()) {
                    unread.add(chunk); // asked for with the last read, beyond it
                }
                return;
            }
            take(chunk); // a read takes what is unread before it asks for more: nothing is queued before this chunk
            lastBytesNanos = System.nanoTime();
            if (chunk.hasRemaining()) {
                unread.add(chunk);
            }
            if (!target.hasRemaining()) {
                out = target;
                done = pending;
                finishRead();
            } else {
                more = askLocked();
            }
        }
        if (done != null) {
            done.complete(out.flip());
        } else if (more > 0) {
            subscription.request(more);
        }
    }

    @Override
    public void onError(Throwable t) {
        failAndClose(new ObjectStoreException(
                "the body of object " + ObjectKeys.printable(key) + " in " + location + " failed at position "
                        + position() + ": " + t,
                t));
    }

    @Override
    public void onComplete() {
        long failedAt;
        synchronized (this) {
            ended = true;
            if (pending == null) {
                return;
            }
            failedAt = position;
        }
        failAndClose(new ObjectStoreException("the body of object " + ObjectKeys.printable(key) + " in " + location
                + " ended at position " + failedAt + ", before the " + end + " its range asked for (truncated?)"));
    }

    /**
     * How many more chunks to ask for now: enough for the pending read's remaining bytes, at most
     * {@link #CHUNKS_AHEAD} outstanding; counted as asked for (the caller asks, outside the monitor).
     */
    private long askLocked() {
        if (target == null || subscription == null || closedBecause != null || ended) {
            return 0;
        }
        long want = Math.min(CHUNKS_AHEAD, (target.remaining() + CHUNK_GUESS - 1) / CHUNK_GUESS);
        long more = want - demand;
        if (more <= 0) {
            return 0;
        }
        demand += more;
        return more;
    }

    private void take(ByteBuffer chunk) {
        int n = Math.min(target.remaining(), chunk.remaining());
        ByteBuffer slice = chunk.slice(chunk.position(), n);
        target.put(slice);
        chunk.position(chunk.position() + n);
        position += n;
    }

    /** Ends the pending read; the caller completes its future, with the target, outside the monitor. */
    private void finishRead() {
        pending = null;
        target = null;
        lastUsedNanos = System.nanoTime();
        if (position >= end) {
            closeLocked("its range was read to the end");
        } else {
            scheduleWatch();
        }
    }

    private void scheduleWatch() {
        if (watch == null && closedBecause == null) {
            try {
                watch = timer.schedule(this::watch, Math.min(idle.toNanos(), stall.toNanos()), TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException e) {
                // The store is closing: it closes its streams, this one with them.
            }
        }
    }

    /**
     * Closes the stream when nobody read from it for {@code idle}, and fails its pending read when no bytes came for
     * {@code stall}: a body whose connection died without the SDK telling its subscriber (seen with a response cut
     * off mid-body) would leave the read waiting for ever.
     */
    private void watch() {
        ObjectStoreException stalled = null;
        synchronized (this) {
            watch = null;
            if (closedBecause != null) {
                return;
            }
            long now = System.nanoTime();
            if (pending != null) {
                long quiet = now - lastBytesNanos;
                if (quiet >= stall.toNanos()) {
                    stalled = new ObjectStoreException("the body of object " + ObjectKeys.printable(key) + " in "
                            + location + " stalled at position " + position + ": no bytes for " + stall);
                } else {
                    watch = timer.schedule(this::watch, stall.toNanos() - quiet, TimeUnit.NANOSECONDS);
                }
            } else {
                long quiet = now - lastUsedNanos;
                if (quiet >= idle.toNanos()) {
                    closeLocked("nothing was read from it for " + idle);
                } else {
                    watch = timer.schedule(this::watch, idle.toNanos() - quiet, TimeUnit.NANOSECONDS);
                }
            }
        }
        if (stalled != null) {
            failAndClose(stalled);
        }
    }

    private void failAndClose(ObjectStoreException e) {
        CompletableFuture<ByteBuffer> f;
        synchronized (this) {
            f = pending;
            pending = null;
            target = null;
            closeLocked(e.getMessage());
        }
        if (f != null) {
            f.completeExceptionally(e);
        }
    }

    /** Marks the stream closed, cancels its body and gives its place back; once. */
    private void closeLocked(String because) {
        if (closedBecause != null) {
            return;
        }
        closedBecause = because;
        unread.clear();
        if (watch != null) {
            watch.cancel(false);
            watch = null;
        }
        if (subscription != null) {
            subscription.cancel();
        }
        onClose.run();
    }

    private ObjectStoreException closed() {
        return new ObjectStoreException("the stream of object " + ObjectKeys.printable(key) + " in " + location
                + " is closed at position " + position + " (" + closedBecause + ")");
    }

    @Override
    public synchronized long position() {
        return position;
    }

    @Override
    public long end() {
        return end;
    }

    @Override
    public synchronized boolean isOpen() {
        return closedBecause == null;
    }

    @Override
    public void close() {
        failAndClose(new ObjectStoreException("the stream of object " + ObjectKeys.printable(key) + " in " + location
                + " was closed by its reader at position " + position()));
    }
}
