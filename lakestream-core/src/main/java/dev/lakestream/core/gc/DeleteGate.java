package dev.lakestream.core.gc;

import java.util.concurrent.CompletableFuture;

/**
 * What a collector run asks before each delete request and tells after it: the service paces deletes to its rate
 * limit, stops a run whose lease is lost or which is closing, and records what was deleted.
 */
public interface DeleteGate {

    /** No pacing, no stopping: for tests and tools that call the collector directly (one at a time). */
    DeleteGate UNLIMITED = new DeleteGate() {
        @Override
        public int maxBatch() {
            return 1000;
        }

        @Override
        public CompletableFuture<Void> admit(int objects) {
            return CompletableFuture.completedFuture(null);
        }
    };

    /** At most this many objects per delete request. */
    int maxBatch();

    /** Completes when a delete of {@code objects} objects may be sent; fails (e.g. lease lost) to end the run. */
    CompletableFuture<Void> admit(int objects);

    /** A delete request of {@code objects} objects holding {@code bytes} bytes succeeded. */
    default void deleted(int objects, long bytes) {}
}
