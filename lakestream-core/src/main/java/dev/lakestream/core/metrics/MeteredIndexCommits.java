package dev.lakestream.core.metrics;

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
 * The WAL writer's view of the metadata store: the writer's only writes are its index commits, so every put made
 * through this view is counted as one (with its latency and whether it failed). Everything else passes through.
 * Closing does not close the shared store.
 */
final class MeteredIndexCommits implements MetadataStore {

    private final MetadataStore store;
    private final OperationMetrics commits;

    MeteredIndexCommits(MetadataStore store, OperationMetrics commits) {
        this.store = store;
        this.commits = commits;
    }

    @Override
    public CompletableFuture<PutResult> put(String key, byte[] value, PutOptions options) {
        long start = System.nanoTime();
        return store.put(key, value, options).whenComplete((r, e) -> {
            if (e != null) {
                commits.failed(start);
            } else {
                commits.completed(start, value.length);
            }
        });
    }

    @Override
    public CompletableFuture<Optional<Record>> get(String key, GetOptions options) {
        return store.get(key, options);
    }

    @Override
    public CompletableFuture<Boolean> delete(String key, DeleteOptions options) {
        return store.delete(key, options);
    }

    @Override
    public CompletableFuture<Void> deleteRange(
            String startInclusive, String endExclusive, Optional<String> partitionKey) {
        return store.deleteRange(startInclusive, endExclusive, partitionKey);
    }

    @Override
    public CompletableFuture<List<String>> list(
            String startInclusive, String endExclusive, Optional<String> partitionKey) {
        return store.list(startInclusive, endExclusive, partitionKey);
    }

    @Override
    public CompletableFuture<List<Record>> rangeScan(
            String startInclusive, String endExclusive, Optional<String> partitionKey, int limit) {
        return store.rangeScan(startInclusive, endExclusive, partitionKey, limit);
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
        // The Lakestream instance (or its caller) closes the shared store.
    }
}
