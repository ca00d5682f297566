package dev.lakestream.core.gc;

import dev.lakestream.core.concurrent.Futures;
import dev.lakestream.core.metadata.DeleteOptions;
import dev.lakestream.core.metadata.KeyAlreadyExistsException;
import dev.lakestream.core.metadata.MetadataStore;
import dev.lakestream.core.metadata.PutOptions;
import dev.lakestream.core.metadata.Record;
import dev.lakestream.core.metadata.UnexpectedVersionException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The GC lease: an ephemeral record {@code <root>/gc/lease} whose value names its holder. Ephemeral, so it goes
 * when the holder's metadata-store session ends (an Oxia session times out after a crash; the embedded store removes
 * it on close), and another process's next {@link #acquire} takes it.
 */
final class GcLease {

    private final MetadataStore metadata;
    private final String key;
    private final byte[] holder;

    GcLease(MetadataStore metadata, String metadataRoot, String holder) {
        this.metadata = metadata;
        this.key = metadataRoot + "/gc/lease";
        this.holder = holder.getBytes(StandardCharsets.UTF_8);
    }

    String key() {
        return key;
    }

    /** Whether this process holds the lease after the call: it held it already, or just took it. */
    CompletableFuture<Boolean> acquire() {
        return mine().thenCompose(mine -> {
            if (mine.isPresent()) {
                return CompletableFuture.completedFuture(true);
            }
            return metadata.put(key, holder, PutOptions.ifAbsent().asEphemeral())
                    .thenApply(p -> true)
                    .exceptionallyCompose(e -> Futures.unwrap(e) instanceof KeyAlreadyExistsException
                            ? CompletableFuture.completedFuture(false)
                            : CompletableFuture.failedFuture(Futures.unwrap(e)));
        });
    }

    /** Whether the lease record is still this process's. */
    CompletableFuture<Boolean> held() {
        return mine().thenApply(Optional::isPresent);
    }

    /** Gives the lease up if this process holds it. */
    CompletableFuture<Void> release() {
        return mine().thenCompose(mine -> mine.isEmpty()
                ? CompletableFuture.completedFuture(null)
                : metadata.delete(
                                key,
                                DeleteOptions.ifVersion(mine.get().version().versionId()))
                        .<Void>thenApply(d -> null)
                        // Lost and retaken by another process in between: it is not ours to delete.
                        .exceptionallyCompose(e -> Futures.unwrap(e) instanceof UnexpectedVersionException
                                ? CompletableFuture.completedFuture(null)
                                : CompletableFuture.failedFuture(e)));
    }

    private CompletableFuture<Optional<Record>> mine() {
        return metadata.get(key).thenApply(r -> r.filter(rec -> Arrays.equals(rec.value(), holder)));
    }
}
