package dev.lakestream.core.objectstore;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.util.Collection;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A flat store of immutable objects addressed by string keys: S3 or any S3-compatible store, or a local
 * directory in the embedded single-node mode.
 *
 * <p>Keys are relative to the store's configured root (bucket prefix or directory); implementations map
 * them onto physical names. Every operation is asynchronous and never blocks the caller's thread. Failures
 * complete the future exceptionally with an {@link ObjectStoreException} subclass whose message names the
 * store and the key.
 *
 * <p>Byte buffers passed in are read from their position to their limit and are not modified (their
 * position is left as it was); the caller keeps ownership and may reuse them once the future completes.
 *
 * <p>Keys follow the rules of {@link ObjectKeys} (non-empty, at most 1024 UTF-8 bytes, no control
 * characters or backslash, no empty, {@code "."} or {@code ".."} segment); a key that breaks them fails with
 * {@link InvalidObjectKeyException} before any I/O. Arguments out of their documented ranges ({@code maxKeys},
 * a negative {@code offset}, a {@code length} below 1) fail the future with
 * {@link IllegalArgumentException}. After {@link #close()} every operation fails with an
 * {@link ObjectStoreException}.
 */
public interface ObjectStore extends AutoCloseable {

    /** Writes {@code data} under {@code key}, replacing any object already there. Durable on completion. */
    CompletableFuture<Void> put(String key, ByteBuffer data);

    /**
     * Writes the body's parts, one after the other, under {@code key}, replacing any object already there: a
     * gathering write, so a caller whose bytes sit in several buffers need not copy them into one. Durable on
     * completion. The default copies the parts into one buffer; the stores of this project write them as they are.
     */
    default CompletableFuture<Void> put(String key, ObjectBody body) {
        return put(key, body.copy());
    }

    /**
     * A streamed write of one object under {@code key}, for objects too large to hold whole (segments): the bytes go
     * to the store in parts as they are written, and the object appears only when the upload completes. The stores of
     * this project stream (S3: a multipart upload; filesystem: a temporary file renamed into place); the default
     * buffers the whole object and {@linkplain #put(String, ByteBuffer) puts} it at completion.
     */
    default ObjectUpload newUpload(String key) {
        ObjectStore store = this;
        return new PartUpload(key, Integer.MAX_VALUE - 8) {
            @Override
            protected CompletableFuture<Void> sendPart(int number, ByteBuffer part) {
                return CompletableFuture.failedFuture(new IllegalArgumentException(
                        "object " + ObjectKeys.printable(key) + " is too large to be buffered in one array"));
            }

            @Override
            protected CompletableFuture<Void> commit(int parts) {
                return CompletableFuture.failedFuture(new IllegalStateException("nothing to commit"));
            }

            @Override
            protected CompletableFuture<Void> putWhole(ByteBuffer bytes) {
                return store.put(key, bytes);
            }

            @Override
            protected CompletableFuture<Void> discard() {
                return CompletableFuture.completedFuture(null);
            }
        };
    }

    /**
     * Writes {@code data} under {@code key} only if no object exists there (an atomic conditional create).
     * Fails with {@link ObjectAlreadyExistsException} when one does.
     */
    CompletableFuture<Void> putIfAbsent(String key, ByteBuffer data);

    /** Reads the whole object. Fails with {@link ObjectNotFoundException} when it does not exist. */
    CompletableFuture<ByteBuffer> get(String key);

    /**
     * Reads {@code length} bytes from {@code offset}. A range that runs past the end of the object is cut at
     * the end; an {@code offset} at or past the end fails with {@link InvalidRangeException}.
     */
    CompletableFuture<ByteBuffer> get(String key, long offset, long length);

    /**
     * Reads {@code length} bytes from {@code offset}, as {@link #get(String, long, long)}, into a buffer taken from
     * {@code allocator} (a pooled direct one, say), so that reads make no garbage. The caller owns the one reference
     * to the buffer and releases it. The default wraps the bytes of {@link #get(String, long, long)}.
     */
    default CompletableFuture<ByteBuf> get(String key, long offset, long length, ByteBufAllocator allocator) {
        return get(key, offset, length).thenApply(Unpooled::wrappedBuffer);
    }

    /**
     * Reads the whole object, as {@link #get(String)}, into a buffer taken from {@code allocator}; the caller owns the
     * one reference to it and releases it. The default wraps the bytes of {@link #get(String)}.
     */
    default CompletableFuture<ByteBuf> get(String key, ByteBufAllocator allocator) {
        return get(key).thenApply(Unpooled::wrappedBuffer);
    }

    /**
     * Opens {@code length} bytes from {@code offset} for reading front to back ({@link ObjectStream}): one request for
     * all of it where the store streams, so a reader stepping through a large range pays one GET. The default reads
     * each step with a ranged GET of its own. Fails as {@link #get(String, long, long)} does when the object or range
     * is missing.
     */
    default CompletableFuture<ObjectStream> openStream(String key, long offset, long length) {
        if (offset < 0 || length < 1) {
            return CompletableFuture.failedFuture(new IllegalArgumentException(
                    "need offset >= 0 and length >= 1: offset " + offset + ", length " + length));
        }
        return CompletableFuture.completedFuture(new RangedObjectStream(this, key, offset, length));
    }

    /** The object's size and modification time, or empty when it does not exist. */
    CompletableFuture<Optional<ObjectInfo>> head(String key);

    /**
     * One page of the keys that start with {@code prefix}, in ascending lexicographic (UTF-8 byte) order.
     *
     * @param continuation {@code null} for the first page, else {@link ObjectListing#continuation()} of the
     *     previous page
     * @param maxKeys at most this many keys (1..1000)
     */
    CompletableFuture<ObjectListing> list(String prefix, String continuation, int maxKeys);

    /** Deletes the objects; keys that do not exist are ignored. Large batches are split as the store needs. */
    CompletableFuture<Void> delete(Collection<String> keys);

    /** Where this store writes, for messages and logs, e.g. {@code s3://bucket/prefix at http://host:port}. */
    String location();

    /** Releases connections and threads. Pending operations may fail. */
    @Override
    void close();
}
