package dev.lakestream.core.metrics;

import dev.lakestream.core.metadata.ForwardingMetadataStore;
import dev.lakestream.core.metadata.MetadataStore;
import dev.lakestream.core.metadata.PutOptions;
import dev.lakestream.core.metadata.PutResult;
import java.util.concurrent.CompletableFuture;

/**
 * The WAL writer's view of the metadata store: the writer's only writes are its index commits, so every put made
 * through this view is counted as one (with its latency and whether it failed). Everything else passes through.
 * Closing does not close the shared store.
 */
final class MeteredIndexCommits extends ForwardingMetadataStore {

    private final OperationMetrics commits;

    MeteredIndexCommits(MetadataStore store, OperationMetrics commits) {
        super(store);
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
    public void close() {
        // The Lakestream instance (or its caller) closes the shared store.
    }
}
