package dev.lakestream.core.log;

import dev.lakestream.core.objectstore.ObjectInfo;
import dev.lakestream.core.objectstore.ObjectListing;
import dev.lakestream.core.objectstore.ObjectStore;
import dev.lakestream.core.objectstore.ObjectStoreUnavailableException;
import java.nio.ByteBuffer;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.LongPredicate;

/**
 * A real object store seen through a decorator that records every ranged GET (its length) and, for fault injection,
 * fails the ranged GETs whose length a predicate picks. Does not close the store it wraps.
 */
final class CountingObjectStore implements ObjectStore {

    private final ObjectStore store;
    private final List<Long> rangedGets = new CopyOnWriteArrayList<>();
    private volatile LongPredicate failRangesOf = length -> false;

    CountingObjectStore(ObjectStore store) {
        this.store = store;
    }

    /** The lengths asked for by every ranged GET so far, in order. */
    List<Long> rangedGets() {
        return List.copyOf(rangedGets);
    }

    /** From now on, ranged GETs whose length {@code failing} accepts fail as if the store were unavailable. */
    void failRangedGets(LongPredicate failing) {
        this.failRangesOf = failing;
    }

    @Override
    public CompletableFuture<ByteBuffer> get(String key, long offset, long length) {
        rangedGets.add(length);
        if (failRangesOf.test(length)) {
            return CompletableFuture.failedFuture(new ObjectStoreUnavailableException("injected: GET of " + key
                    + " bytes " + offset + "+" + length + " failed", null));
        }
        return store.get(key, offset, length);
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
        return "counting " + store.location();
    }

    @Override
    public void close() {
    }
}
