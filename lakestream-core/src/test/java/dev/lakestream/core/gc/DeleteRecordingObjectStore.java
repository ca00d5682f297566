package dev.lakestream.core.gc;

import dev.lakestream.core.objectstore.ForwardingObjectStore;
import dev.lakestream.core.objectstore.ObjectStore;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

/** A real object store seen through a decorator that records each delete request: when, and of how many objects. */
final class DeleteRecordingObjectStore extends ForwardingObjectStore {

    record Delete(long nanoTime, int objects) {}

    private final List<Delete> deletes = new CopyOnWriteArrayList<>();

    DeleteRecordingObjectStore(ObjectStore store) {
        super("recording", store);
    }

    List<Delete> deletes() {
        return List.copyOf(deletes);
    }

    @Override
    public CompletableFuture<Void> delete(Collection<String> keys) {
        deletes.add(new Delete(System.nanoTime(), keys.size()));
        return store.delete(keys);
    }
}
