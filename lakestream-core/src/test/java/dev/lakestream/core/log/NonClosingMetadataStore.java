package dev.lakestream.core.log;

import dev.lakestream.core.metadata.DeleteOptions;
import dev.lakestream.core.metadata.GetOptions;
import dev.lakestream.core.metadata.MetadataStore;
import dev.lakestream.core.metadata.Notification;
import dev.lakestream.core.metadata.PutOptions;
import dev.lakestream.core.metadata.PutResult;
import dev.lakestream.core.metadata.Record;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * Shares a store with a second user that must not close it (the embedded store allows one instance per directory);
 * counts the records that user's range scans return, and the gets by key.
 */
public final class NonClosingMetadataStore implements MetadataStore {

    private final MetadataStore d;
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
        this.d = delegate;
    }

    @Override
    public CompletableFuture<Optional<Record>> get(String key, GetOptions options) {
        gets.computeIfAbsent(key, k -> new java.util.concurrent.atomic.AtomicLong())
                .incrementAndGet();
        return d.get(key, options);
    }

    @Override
    public CompletableFuture<PutResult> put(String key, byte[] value, PutOptions options) {
        return d.put(key, value, options);
    }

    @Override
    public CompletableFuture<Boolean> delete(String key, DeleteOptions options) {
        return d.delete(key, options);
    }

    @Override
    public CompletableFuture<Void> deleteRange(String s, String e, Optional<String> p) {
        return d.deleteRange(s, e, p);
    }

    @Override
    public CompletableFuture<List<String>> list(String s, String e, Optional<String> p) {
        return d.list(s, e, p);
    }

    @Override
    public CompletableFuture<List<Record>> rangeScan(String s, String e, Optional<String> p, int limit) {
        return d.rangeScan(s, e, p, limit).thenApply(records -> {
            scanned.addAndGet(records.size());
            return records;
        });
    }

    @Override
    public AutoCloseable addListener(Consumer<Notification> listener) {
        return d.addListener(listener);
    }

    @Override
    public String address() {
        return d.address();
    }

    @Override
    public void close() {
        // The owner closes the shared store.
    }
}
