package dev.lakestream.core.log;

import dev.lakestream.core.objectstore.ForwardingObjectStore;
import dev.lakestream.core.objectstore.ObjectStore;
import dev.lakestream.core.objectstore.ObjectStoreUnavailableException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.LongPredicate;

/**
 * A real object store seen through a decorator that records every ranged GET (its length) and, for fault injection,
 * fails the ranged GETs whose length a predicate picks. Does not close the store it wraps.
 */
final class CountingObjectStore extends ForwardingObjectStore {

    private final List<Long> rangedGets = new CopyOnWriteArrayList<>();
    private volatile LongPredicate failRangesOf = length -> false;

    CountingObjectStore(ObjectStore store) {
        super("counting", store);
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
            return CompletableFuture.failedFuture(new ObjectStoreUnavailableException(
                    "injected: GET of " + key + " bytes " + offset + "+" + length + " failed", null));
        }
        return store.get(key, offset, length);
    }
}
