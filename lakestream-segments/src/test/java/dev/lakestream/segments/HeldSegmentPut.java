package dev.lakestream.segments;

import dev.lakestream.core.objectstore.ForwardingObjectStore;
import dev.lakestream.core.objectstore.ObjectStore;
import dev.lakestream.core.objectstore.ObjectUpload;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A real object store whose first segment PUT or upload completion (a key under {@code segments/}) is held until
 * {@link #release()}: a
 * compactor paused (a GC pause, a frozen process) after it planned a range and before its switch. Does not close the
 * store it wraps.
 */
final class HeldSegmentPut extends ForwardingObjectStore {

    /** Completes with the held PUT's key when the compactor calls it. */
    final CompletableFuture<String> arrived = new CompletableFuture<>();

    private final CompletableFuture<Void> gate = new CompletableFuture<>();
    private final AtomicBoolean taken = new AtomicBoolean();

    HeldSegmentPut(ObjectStore store) {
        super("held", store);
    }

    void release() {
        gate.complete(null);
    }

    @Override
    public CompletableFuture<Void> put(String key, ByteBuffer data) {
        if (!key.startsWith("segments/") || !taken.compareAndSet(false, true)) {
            return store.put(key, data);
        }
        arrived.complete(key);
        return gate.thenCompose(v -> store.put(key, data));
    }

    @Override
    public ObjectUpload newUpload(String key) {
        ObjectUpload upload = store.newUpload(key);
        if (!key.startsWith("segments/")) {
            return upload;
        }
        return new ObjectUpload() {
            @Override
            public String key() {
                return key;
            }

            @Override
            public void write(ByteBuffer data) {
                upload.write(data);
            }

            @Override
            public CompletableFuture<Void> ready() {
                return upload.ready();
            }

            @Override
            public long length() {
                return upload.length();
            }

            @Override
            public long bufferedBytes() {
                return upload.bufferedBytes();
            }

            @Override
            public long peakBufferedBytes() {
                return upload.peakBufferedBytes();
            }

            @Override
            public CompletableFuture<Void> complete() {
                if (!taken.compareAndSet(false, true)) {
                    return upload.complete();
                }
                arrived.complete(key);
                return gate.thenCompose(v -> upload.complete());
            }

            @Override
            public CompletableFuture<Void> abort() {
                return upload.abort();
            }
        };
    }
}
