package dev.lakestream.core.objectstore;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * One object written as a stream of bytes, for objects too large to hold in memory whole (a compacted segment): the
 * bytes go to the store in parts while more are written, and the object appears under its key, whole, only when
 * {@link #complete()} succeeds (an S3 multipart upload; a temporary file renamed into place). Until then nothing is
 * visible at the key, and {@link #abort()} (or a failure) leaves nothing behind.
 *
 * <p>Memory stays bounded if the writer waits for {@link #ready()} between bursts of writes: {@link #write} itself never
 * blocks, so it buffers whatever it is given. Owned by one writer thread; its futures complete on the store's threads.
 */
public interface ObjectUpload {

    /** The key the object will have. */
    String key();

    /**
     * Appends the buffer's bytes (position to limit; copied before this returns, the buffer is not modified). Never
     * blocks. After a part failed the bytes are dropped: {@link #ready()} and {@link #complete()} report the failure.
     *
     * @throws IllegalStateException after {@link #complete()} or {@link #abort()}
     */
    void write(ByteBuffer data);

    /**
     * Completes when the bytes written and not yet stored are down to what the store keeps buffered (about one part
     * being filled and one being sent), so that the writer may go on; fails when a part could not be stored (after
     * the store's retries; the writer then calls {@link #abort()}, or {@link #complete()} fails alike).
     */
    CompletableFuture<Void> ready();

    /** Bytes written so far. */
    long length();

    /** Bytes written and not yet acknowledged by the store: what the upload holds in memory now. */
    long bufferedBytes();

    /** The most {@link #bufferedBytes()} has been: what the upload needed at most. */
    long peakBufferedBytes();

    /**
     * Stores the rest and makes the object visible, whole, under its key (replacing any object there). Durable on
     * completion. On failure nothing is visible at the key and what was stored of it is discarded.
     */
    CompletableFuture<Void> complete();

    /**
     * Drops the upload: nothing becomes visible at the key, and parts stored so far are discarded. Completes once they
     * are (best effort: a failure to discard is logged, not thrown). Does nothing after a successful complete.
     */
    CompletableFuture<Void> abort();
}
