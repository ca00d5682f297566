package dev.lakestream.core.metadata;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * A decorator's base: forwards every call to the metadata store it wraps, so a decorator (a metered view, a test's
 * fault injection) overrides only the calls it changes. Closing it closes the wrapped store, unless the decorator
 * overrides {@link #close()}.
 */
public abstract class ForwardingMetadataStore implements MetadataStore {

    protected final MetadataStore store;

    protected ForwardingMetadataStore(MetadataStore store) {
        this.store = store;
    }

    @Override
    public CompletableFuture<Optional<Record>> get(String key, GetOptions options) {
        return store.get(key, options);
    }

    @Override
    public CompletableFuture<PutResult> put(String key, byte[] value, PutOptions options) {
        return store.put(key, value, options);
    }

    @Override
    public CompletableFuture<Boolean> delete(String key, DeleteOptions options) {
        return store.delete(key, options);
    }

    @Override
    public CompletableFuture<Void> deleteRange(String start, String end, Optional<String> partitionKey) {
        return store.deleteRange(start, end, partitionKey);
    }

    @Override
    public CompletableFuture<List<String>> list(String start, String end, Optional<String> partitionKey) {
        return store.list(start, end, partitionKey);
    }

    @Override
    public CompletableFuture<List<Record>> rangeScan(
            String start, String end, Optional<String> partitionKey, int limit) {
        return store.rangeScan(start, end, partitionKey, limit);
    }

    @Override
    public AutoCloseable addListener(Consumer<Notification> listener) {
        return store.addListener(listener);
    }

    @Override
    public String address() {
        return store.address();
    }

    @Override
    public void close() {
        store.close();
    }
}
