package dev.lakestream.segments;

import dev.lakestream.core.metadata.DeleteOptions;
import dev.lakestream.core.metadata.ForwardingMetadataStore;
import dev.lakestream.core.metadata.MetadataStore;
import dev.lakestream.core.metadata.MetadataStoreUnavailableException;
import dev.lakestream.core.metadata.PutOptions;
import dev.lakestream.core.metadata.PutResult;
import dev.lakestream.core.metadata.Record;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A real metadata store seen through a decorator that fails, on demand, the writes a switch makes under one key
 * prefix: its version-conditional overwrites (the switch's step 3) and its conditional deletes (step 4), as a
 * process killed just before them would leave things; or holds those deletes back, as a process paused there would.
 * Does not close the store it wraps.
 */
final class FaultyMetadataStore extends ForwardingMetadataStore {

    private final AtomicReference<String> prefix = new AtomicReference<>("\u0000none");
    private final AtomicInteger failOverwrites = new AtomicInteger();
    private final AtomicInteger failDeletes = new AtomicInteger();
    private final AtomicInteger failed = new AtomicInteger();
    private final AtomicReference<CompletableFuture<Void>> deleteGate = new AtomicReference<>();

    /** Range scans so far (index reads among them). */
    final AtomicInteger rangeScans = new AtomicInteger();

    /** Completes when the first held delete is called. */
    final CompletableFuture<String> deleteHeld = new CompletableFuture<>();

    FaultyMetadataStore(MetadataStore store) {
        super(store);
    }

    /** Fails the next {@code n} version-conditional puts of keys under {@code keyPrefix}. */
    void failNextOverwrites(String keyPrefix, int n) {
        prefix.set(keyPrefix);
        failOverwrites.set(n);
    }

    /** Fails every version-conditional delete of keys under {@code keyPrefix} until {@link #heal()}. */
    void failDeletes(String keyPrefix) {
        prefix.set(keyPrefix);
        failDeletes.set(Integer.MAX_VALUE);
    }

    /** Holds every version-conditional delete of keys under {@code keyPrefix} until {@link #releaseDeletes()}. */
    void holdDeletes(String keyPrefix) {
        prefix.set(keyPrefix);
        deleteGate.set(new CompletableFuture<>());
    }

    void releaseDeletes() {
        CompletableFuture<Void> gate = deleteGate.getAndSet(null);
        if (gate != null) {
            gate.complete(null);
        }
    }

    void heal() {
        failOverwrites.set(0);
        failDeletes.set(0);
    }

    /** Writes failed so far. */
    int failed() {
        return failed.get();
    }

    @Override
    public CompletableFuture<PutResult> put(String key, byte[] value, PutOptions options) {
        if (options.expectedVersionId() >= 0 && key.startsWith(prefix.get()) && take(failOverwrites)) {
            return CompletableFuture.failedFuture(
                    new MetadataStoreUnavailableException("injected: the process died before overwriting " + key));
        }
        return store.put(key, value, options);
    }

    @Override
    public CompletableFuture<Boolean> delete(String key, DeleteOptions options) {
        if (options.expectedVersionId() >= 0 && key.startsWith(prefix.get()) && take(failDeletes)) {
            return CompletableFuture.failedFuture(
                    new MetadataStoreUnavailableException("injected: the process died before deleting " + key));
        }
        CompletableFuture<Void> gate = deleteGate.get();
        if (gate != null && options.expectedVersionId() >= 0 && key.startsWith(prefix.get())) {
            deleteHeld.complete(key);
            return gate.thenCompose(v -> store.delete(key, options));
        }
        return store.delete(key, options);
    }

    private boolean take(AtomicInteger budget) {
        int left = budget.getAndUpdate(n -> n == Integer.MAX_VALUE || n == 0 ? n : n - 1);
        if (left > 0) {
            failed.incrementAndGet();
            return true;
        }
        return false;
    }

    @Override
    public CompletableFuture<List<Record>> rangeScan(
            String startInclusive, String endExclusive, Optional<String> p, int limit) {
        rangeScans.incrementAndGet();
        return store.rangeScan(startInclusive, endExclusive, p, limit);
    }

    @Override
    public String address() {
        return "faulty " + store.address();
    }

    @Override
    public void close() {
        // The test closes the store it wraps.
    }
}
