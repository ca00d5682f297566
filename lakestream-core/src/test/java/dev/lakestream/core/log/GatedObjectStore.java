package dev.lakestream.core.log;

import dev.lakestream.core.objectstore.ForwardingObjectStore;
import dev.lakestream.core.objectstore.ObjectStore;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A real object store seen through a decorator that records every PUT (key and size, in the order they were
 * called) and can hold the next PUT back until the test lets it go, as a slow PUT would. Does not close the
 * store it wraps.
 */
final class GatedObjectStore extends ForwardingObjectStore {

    record Put(String key, int bytes) {}

    /** A PUT held back: {@link #arrived} completes when the writer calls it; {@link #release} sends it on. */
    static final class Held {
        final CompletableFuture<String> arrived = new CompletableFuture<>();
        private final CompletableFuture<Void> gate = new CompletableFuture<>();

        void release() {
            gate.complete(null);
        }

        /** Fails the held PUT with {@code error} instead of sending it on. */
        void fail(Throwable error) {
            gate.completeExceptionally(error);
        }
    }

    private final List<Put> puts = new CopyOnWriteArrayList<>();
    private final AtomicReference<Held> next = new AtomicReference<>();
    private final List<Held> held = new CopyOnWriteArrayList<>();

    GatedObjectStore(ObjectStore store) {
        super("gated", store);
    }

    /** Every PUT called so far, in order. */
    List<Put> puts() {
        return List.copyOf(puts);
    }

    /** Holds back the next PUT called (one only) until {@link Held#release()}. */
    Held holdNextPut() {
        Held held = new Held();
        if (!next.compareAndSet(null, held)) {
            throw new IllegalStateException("a PUT is already set to be held");
        }
        this.held.add(held);
        return held;
    }

    /** Lets every PUT held so far go (after a failed test, so that closing the writer does not wait for ever). */
    void releaseAll() {
        next.set(null);
        held.forEach(Held::release);
    }

    @Override
    public CompletableFuture<Void> put(String key, ByteBuffer data) {
        puts.add(new Put(key, data.remaining()));
        Held held = next.getAndSet(null);
        if (held == null) {
            return store.put(key, data);
        }
        held.arrived.complete(key);
        return held.gate.thenCompose(v -> store.put(key, data));
    }
}
