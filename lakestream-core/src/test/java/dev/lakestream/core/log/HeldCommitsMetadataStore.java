package dev.lakestream.core.log;

import dev.lakestream.core.metadata.ForwardingMetadataStore;
import dev.lakestream.core.metadata.MetadataStore;
import dev.lakestream.core.metadata.PutOptions;
import dev.lakestream.core.metadata.PutResult;
import java.util.concurrent.CompletableFuture;

/**
 * Fault injection: a writer's index commits (sequence-key puts) held back while {@link #hold()} is in force, as a
 * process paused between its epoch check and its commit would send them late. Everything else passes through.
 */
public final class HeldCommitsMetadataStore extends ForwardingMetadataStore {

    private volatile CompletableFuture<Void> gate = CompletableFuture.completedFuture(null);
    private final CompletableFuture<Void> firstHeld = new CompletableFuture<>();

    public HeldCommitsMetadataStore(MetadataStore delegate) {
        super(delegate);
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
            return store.put(key, value, options);
        }
        firstHeld.complete(null);
        return g.thenCompose(v -> store.put(key, value, options));
    }
}
