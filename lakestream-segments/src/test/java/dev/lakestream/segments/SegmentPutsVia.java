package dev.lakestream.segments;

import dev.lakestream.core.objectstore.ForwardingObjectStore;
import dev.lakestream.core.objectstore.ObjectStore;
import dev.lakestream.core.objectstore.ObjectUpload;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * One bucket seen through two clients: segment PUTs and uploads (keys under {@code segments/}) go through
 * {@code segmentPuts}
 * (a client behind a faulty proxy), everything else (WAL PUTs, every GET) through the other. So a test can make S3
 * refuse or slow down the compactor's segment PUTs alone while producers and readers go on. Closes neither.
 */
final class SegmentPutsVia extends ForwardingObjectStore {

    private final ObjectStore segmentPuts;

    SegmentPutsVia(ObjectStore store, ObjectStore segmentPuts) {
        super("segment puts via " + segmentPuts.location() + ", the rest via", store);
        this.segmentPuts = segmentPuts;
    }

    @Override
    public CompletableFuture<Void> put(String key, ByteBuffer data) {
        return key.startsWith("segments/") ? segmentPuts.put(key, data) : store.put(key, data);
    }

    @Override
    public ObjectUpload newUpload(String key) {
        return key.startsWith("segments/") ? segmentPuts.newUpload(key) : store.newUpload(key);
    }
}
