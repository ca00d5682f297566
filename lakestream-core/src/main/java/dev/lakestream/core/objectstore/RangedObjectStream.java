package dev.lakestream.core.objectstore;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/** An {@link ObjectStream} made of one ranged GET per read: what a store without streaming requests offers. */
final class RangedObjectStream implements ObjectStream {

    private final ObjectStore store;
    private final String key;
    /** Lowered to where the object ends once a read comes back short. */
    private volatile long end;

    private final AtomicBoolean reading = new AtomicBoolean();
    private volatile long position;
    private volatile boolean closed;

    RangedObjectStream(ObjectStore store, String key, long offset, long length) {
        this.store = store;
        this.key = key;
        this.position = offset;
        this.end = offset + length < offset ? Long.MAX_VALUE : offset + length;
    }

    @Override
    public CompletableFuture<ByteBuffer> read(int length) {
        if (closed) {
            return CompletableFuture.failedFuture(new ObjectStoreException("stream of object "
                    + ObjectKeys.printable(key) + " in " + store.location() + " was closed at position " + position));
        }
        if (length < 1) {
            return CompletableFuture.failedFuture(new IllegalArgumentException("a read needs length >= 1: " + length));
        }
        if (!reading.compareAndSet(false, true)) {
            return CompletableFuture.failedFuture(
                    new IllegalStateException("a read of the stream of " + ObjectKeys.printable(key) + " is pending"));
        }
        long at = position;
        long n = Math.min(length, end - at);
        if (n <= 0) {
            reading.set(false);
            return CompletableFuture.completedFuture(ByteBuffer.allocate(0));
        }
        return store.get(key, at, n).whenComplete((bytes, e) -> {
            if (e == null) {
                position = at + bytes.remaining();
                if (bytes.remaining() < n) {
                    end = position; // the object ends here
                }
            }
            reading.set(false);
        });
    }

    @Override
    public long position() {
        return position;
    }

    @Override
    public long end() {
        return end;
    }

    @Override
    public boolean isOpen() {
        return !closed && position < end;
    }

    @Override
    public boolean requestPerRead() {
        return true;
    }

    @Override
    public void close() {
        closed = true;
    }
}
