package dev.lakestream.segments;

import dev.lakestream.core.objectstore.ForwardingObjectStore;
import dev.lakestream.core.objectstore.ObjectStore;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/** A real store seen through a decorator counting GETs (whole and ranged) and the bytes they returned. */
final class CountingObjectStore extends ForwardingObjectStore {

    final AtomicLong gets = new AtomicLong();
    final AtomicLong wholeGets = new AtomicLong();
    final AtomicLong bytes = new AtomicLong();
    /** Keys of the GETs, in the order they were asked. */
    final java.util.Queue<String> keys = new java.util.concurrent.ConcurrentLinkedQueue<>();

    CountingObjectStore(ObjectStore store) {
        super("counting", store);
    }

    void reset() {
        gets.set(0);
        wholeGets.set(0);
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

    private ByteBuffer count(ByteBuffer b) {
        bytes.addAndGet(b.remaining());
        return b;
    }
}
