package dev.lakestream.segments;

import dev.lakestream.core.objectstore.ForwardingObjectStore;
import dev.lakestream.core.objectstore.ForwardingObjectStream;
import dev.lakestream.core.objectstore.ObjectStore;
import dev.lakestream.core.objectstore.ObjectStream;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/** A real store seen through a decorator counting GETs (whole, ranged and streams) and the bytes they returned. */
final class CountingObjectStore extends ForwardingObjectStore {

    final AtomicLong gets = new AtomicLong();
    final AtomicLong wholeGets = new AtomicLong();
    /** Of the GETs, those that opened a stream. */
    final AtomicLong streams = new AtomicLong();

    final AtomicLong bytes = new AtomicLong();
    /** Keys of the GETs, in the order they were asked. */
    final java.util.Queue<String> keys = new java.util.concurrent.ConcurrentLinkedQueue<>();

    CountingObjectStore(ObjectStore store) {
        super("counting", store);
    }

    void reset() {
        gets.set(0);
        wholeGets.set(0);
        streams.set(0);
        bytes.set(0);
        keys.clear();
    }

    @Override
    public CompletableFuture<ByteBuffer> get(String key) {
        wholeGets.incrementAndGet();
        gets.incrementAndGet();
        keys.add(key);
        return store.get(key).thenApply(this::count);
    }

    @Override
    public CompletableFuture<ByteBuffer> get(String key, long offset, long length) {
        gets.incrementAndGet();
        keys.add(key);
        return store.get(key, offset, length).thenApply(this::count);
    }

    /** A stream is one GET, as it is one request on S3; its bytes count as they are read. */
    @Override
    public CompletableFuture<ObjectStream> openStream(String key, long offset, long length) {
        gets.incrementAndGet();
        streams.incrementAndGet();
        keys.add(key);
        return store.openStream(key, offset, length).thenApply(s -> new ForwardingObjectStream(s) {
            @Override
            public CompletableFuture<ByteBuffer> read(int n) {
                return stream.read(n).thenApply(CountingObjectStore.this::count);
            }
        });
    }

    private ByteBuffer count(ByteBuffer b) {
        bytes.addAndGet(b.remaining());
        return b;
    }
}
