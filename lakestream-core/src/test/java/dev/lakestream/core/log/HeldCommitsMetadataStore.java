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
 * Fault injection: a writer's index commits (sequence-key puts) held back while {@link #hold()} is in force, as a
 * process paused between its epoch check and its commit would send them late. Everything else passes through.
 */
public final class HeldCommitsMetadataStore implements MetadataStore {

    private final MetadataStore d;
    private volatile CompletableFuture<Void> gate = CompletableFuture.completedFuture(null);
    private final CompletableFuture<Void> firstHeld = new CompletableFuture<>();

    public HeldCommitsMetadataStore(MetadataStore delegate) {
        this.d = delegate;
    }

    /** From now on index commits wait until {@link #letGo()}. */
    public void hold() {
        gate = new CompletableFuture<>();
    }

    /** Sends the commits held so far, and later ones at once. */
    public void letGo() {
        gate.complete(null);
    }

    /** Completes once a commit is held. */
    public CompletableFuture<Void> firstHeld() {
        return firstHeld;
    }

    @Override
    public CompletableFuture<PutResult> put(String key, byte[] value, PutOptions options) {
        CompletableFuture<Void> g = gate;
        if (options.sequenceKeyDeltas().isEmpty() || g.isDone()) {
            return d.put(key, value, options);
        }
        firstHeld.complete(null);
        return g.thenCompose(v -> d.put(key, value, options));
    }

    @Override
    public CompletableFuture<Optional<Record>> get(String key, GetOptions options) {
        return d.get(key, options);
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
        return d.rangeScan(s, e, p, limit);
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
        d.close();
    }
}
