package dev.lakestream.core.metrics;

import dev.lakestream.core.metrics.LakestreamMetrics.ObjectStoreOp;
import dev.lakestream.core.objectstore.ForwardingObjectStream;
import dev.lakestream.core.objectstore.ObjectBody;
import dev.lakestream.core.objectstore.ObjectInfo;
import dev.lakestream.core.objectstore.ObjectListing;
import dev.lakestream.core.objectstore.ObjectStore;
import dev.lakestream.core.objectstore.ObjectStream;
import dev.lakestream.core.objectstore.ObjectUpload;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.ByteBuffer;
import java.util.Collection;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;

/**
 * An object store that counts its calls into {@link LakestreamMetrics}: each call once (a multi-key delete too),
 * with the payload bytes of PUTs and GETs, its latency, and whether it failed. Closing closes the wrapped store.
 */
final class MeteredObjectStore implements ObjectStore {

    private final ObjectStore store;
    private final LakestreamMetrics metrics;

    MeteredObjectStore(ObjectStore store, LakestreamMetrics metrics) {
        this.store = store;
        this.metrics = metrics;
    }

    @Override
    public CompletableFuture<Void> put(String key, ByteBuffer data) {
        long size = data.remaining();
        return metered(ObjectStoreOp.PUT, () -> store.put(key, data), v -> size);
    }

    @Override
    public CompletableFuture<Void> put(String key, ObjectBody body) {
        long size = body.length();
        return metered(ObjectStoreOp.PUT, () -> store.put(key, body), v -> size);
    }

    /** An upload counts as one PUT of its bytes, when it completes (its parts are not counted one by one). */
    @Override
    public ObjectUpload newUpload(String key) {
        ObjectUpload upload = store.newUpload(key);
        return new ObjectUpload() {
            private final long start = System.nanoTime();

            @Override
            public String key() {
                return upload.key();
            }

            @Override
            public void write(ByteBuffer data) {
                upload.write(data);
            }

            @Override
            public CompletableFuture<Void> ready() {
                return upload.ready();
            }

            @Override
            public long length() {
                return upload.length();
            }

            @Override
            public long bufferedBytes() {
                return upload.bufferedBytes();
            }

            @Override
            public long peakBufferedBytes() {
                return upload.peakBufferedBytes();
            }

            @Override
            public CompletableFuture<Void> complete() {
                OperationMetrics m = metrics.objectStore(ObjectStoreOp.PUT);
                long size = upload.length();
                return upload.complete().whenComplete((v, e) -> {
                    if (e != null) {
                        m.failed(start);
                    } else {
                        m.completed(start, size);
                    }
                });
            }

            @Override
            public CompletableFuture<Void> abort() {
                return upload.abort();
            }
        };
    }

    @Override
    public CompletableFuture<ByteBuf> get(String key, ByteBufAllocator allocator) {
        return metered(ObjectStoreOp.GET, () -> store.get(key, allocator), ByteBuf::readableBytes);
    }

    @Override
    public CompletableFuture<ByteBuf> get(String key, long offset, long length, ByteBufAllocator allocator) {
        return metered(ObjectStoreOp.GET, () -> store.get(key, offset, length, allocator), ByteBuf::readableBytes);
    }

    @Override
    public CompletableFuture<Void> putIfAbsent(String key, ByteBuffer data) {
        long size = data.remaining();
        return metered(ObjectStoreOp.PUT, () -> store.putIfAbsent(key, data), v -> size);
    }

    @Override
    public CompletableFuture<ByteBuffer> get(String key) {
        return metered(ObjectStoreOp.GET, () -> store.get(key), ByteBuffer::remaining);
    }

    @Override
    public CompletableFuture<ByteBuffer> get(String key, long offset, long length) {
        return metered(ObjectStoreOp.GET, () -> store.get(key, offset, length), ByteBuffer::remaining);
    }

    /**
     * A stream counts as one GET when it opens, its bytes as they are read; a stream of ranged GETs (a store that does
     * not stream) counts each read as a GET.
     */
    @Override
    public CompletableFuture<ObjectStream> openStream(String key, long offset, long length) {
        OperationMetrics m = metrics.objectStore(ObjectStoreOp.GET);
        long start = System.nanoTime();
        return store.openStream(key, offset, length).handle((s, e) -> {
            if (e != null) {
                m.failed(start);
                throw e instanceof CompletionException c ? c : new CompletionException(e);
            }
            if (!s.requestPerRead()) {
                m.completed(start, 0);
            }
            return new MeteredStream(s, m);
        });
    }

    private static final class MeteredStream extends ForwardingObjectStream {
        private final OperationMetrics m;

        MeteredStream(ObjectStream stream, OperationMetrics m) {
            super(stream);
            this.m = m;
        }

        @Override
        public CompletableFuture<ByteBuffer> read(int length) {
            long start = System.nanoTime();
            return stream.read(length).whenComplete((b, e) -> {
                if (!stream.requestPerRead()) {
                    if (e == null) {
                        m.moved(b.remaining());
                    }
                } else if (e == null) {
                    m.completed(start, b.remaining());
                } else {
                    m.failed(start);
                }
            });
        }
    }

    @Override
    public CompletableFuture<Optional<ObjectInfo>> head(String key) {
        return metered(ObjectStoreOp.HEAD, () -> store.head(key), r -> 0);
    }

    @Override
    public CompletableFuture<ObjectListing> list(String prefix, String continuation, int maxKeys) {
        return metered(ObjectStoreOp.LIST, () -> store.list(prefix, continuation, maxKeys), r -> 0);
    }

    @Override
    public CompletableFuture<Void> delete(Collection<String> keys) {
        return metered(ObjectStoreOp.DELETE, () -> store.delete(keys), v -> 0);
    }

    private <T> CompletableFuture<T> metered(
            ObjectStoreOp op, Supplier<CompletableFuture<T>> call, ToLongFunction<T> bytes) {
        OperationMetrics m = metrics.objectStore(op);
        long start = System.nanoTime();
        CompletableFuture<T> f;
        try {
            f = call.get();
        } catch (RuntimeException e) {
            m.failed(start);
            throw e;
        }
        return f.whenComplete((r, e) -> {
            if (e != null) {
                m.failed(start);
            } else {
                m.completed(start, bytes.applyAsLong(r));
            }
        });
    }

    @Override
    public String location() {
        return store.location();
    }

    @Override
    public void close() {
        store.close();
    }
}
