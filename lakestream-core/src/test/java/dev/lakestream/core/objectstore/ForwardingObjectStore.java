package dev.lakestream.core.objectstore;

import java.nio.ByteBuffer;
import java.util.Collection;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A test decorator's base: forwards every call to a real store, so a decorator overrides only the calls it records
 * or holds back. It never closes the store it wraps: the test that opened the store closes it.
 */
public abstract class ForwardingObjectStore implements ObjectStore {

    protected final ObjectStore store;
    private final String name;

    /** {@code name} says what the decorator does, e.g. "counting"; it prefixes the store's location. */
    protected ForwardingObjectStore(String name, ObjectStore store) {
        this.name = name;
        this.store = store;
    }

    @Override
    public CompletableFuture<Void> put(String key, ByteBuffer data) {
        return store.put(key, data);
    }

    @Override
    public ObjectUpload newUpload(String key) {
        return store.newUpload(key);
    }

    @Override
    public CompletableFuture<Void> putIfAbsent(String key, ByteBuffer data) {
        return store.putIfAbsent(key, data);
    }

    @Override
    public CompletableFuture<ByteBuffer> get(String key) {
        return store.get(key);
    }

    @Override
    public CompletableFuture<ByteBuffer> get(String key, long offset, long length) {
        return store.get(key, offset, length);
    }

    @Override
    public CompletableFuture<Optional<ObjectInfo>> head(String key) {
        return store.head(key);
    }

    @Override
    public CompletableFuture<ObjectListing> list(String prefix, String continuation, int maxKeys) {
        return store.list(prefix, continuation, maxKeys);
    }

    @Override
    public CompletableFuture<Void> delete(Collection<String> keys) {
        return store.delete(keys);
    }

    @Override
    public String location() {
        return name + " " + store.location();
    }

    @Override
    public void close() {
        // The test closes the store it wraps.
    }
}
