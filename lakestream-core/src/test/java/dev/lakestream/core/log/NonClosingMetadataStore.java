package dev.lakestream.core.log;

import dev.lakestream.core.metadata.ForwardingMetadataStore;
import dev.lakestream.core.metadata.GetOptions;
import dev.lakestream.core.metadata.MetadataStore;
import dev.lakestream.core.metadata.Record;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Shares a store with a second user that must not close it (the embedded store allows one instance per directory);
 * counts the records that user's range scans return, and the gets by key.
 */
public final class NonClosingMetadataStore extends ForwardingMetadataStore {

    private final java.util.concurrent.atomic.AtomicLong scanned = new java.util.concurrent.atomic.AtomicLong();

    private final java.util.concurrent.ConcurrentHashMap<String, java.util.concurrent.atomic.AtomicLong> gets =
            new java.util.concurrent.ConcurrentHashMap<>();

    /** Gets through this instance so far of keys starting with {@code prefix}. */
    long getsUnder(String prefix) {
        return gets.entrySet().stream()
                .filter(e -> e.getKey().startsWith(prefix))
                .mapToLong(e -> e.getValue().get())
                .sum();
    }

    /** Records returned by range scans through this instance so far. */
    long recordsScanned() {
        return scanned.get();
    }

    public NonClosingMetadataStore(MetadataStore delegate) {
        super(delegate);
    }

    @Override
    public CompletableFuture<Optional<Record>> get(String key, GetOptions options) {
        gets.computeIfAbsent(key, k -> new java.util.concurrent.atomic.AtomicLong())
                .incrementAndGet();
        return store.get(key, options);
    }

    @Override
    public CompletableFuture<List<Record>> rangeScan(String s, String e, Optional<String> p, int limit) {
        return store.rangeScan(s, e, p, limit).thenApply(records -> {
            scanned.addAndGet(records.size());
            return records;
        });
    }

    @Override
    public void close() {
        // The owner closes the shared store.
    }
}
