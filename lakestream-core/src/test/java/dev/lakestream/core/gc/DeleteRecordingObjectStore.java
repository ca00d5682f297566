package dev.lakestream.core.gc;

import dev.lakestream.core.objectstore.ObjectInfo;
import dev.lakestream.core.objectstore.ObjectListing;
import dev.lakestream.core.objectstore.ObjectStore;
import java.nio.ByteBuffer;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

/** A real object store seen through a decorator that records each delete request: when, and of how many objects. */
final class DeleteRecordingObjectStore implements ObjectStore {

    record Delete(long nanoTime, int objects) {}

    private final ObjectStore store;
    private final List<Delete> deletes = new CopyOnWriteArrayList<>();

    DeleteRecordingObjectStore(ObjectStore store) {
        this.store = store;
    }

    List<Delete> deletes() {
        return List.copyOf(deletes);
    }

    @Override
    public CompletableFuture<Void> delete(Collection<String> keys) {
        deletes.add(new Delete(System.nanoTime(), keys.size()));
        return store.delete(keys);
    }

    @Override
    public CompletableFuture<Void> put(String key, ByteBuffer data) {
        return store.put(key, data);
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
    public String location() {
        return "recording " + store.location();
    }

    @Override
    public void close() {
        // The test closes the store it wraps.
    }
}
