package dev.lakestream.core.cursor;

import dev.lakestream.core.index.IndexKey;
import dev.lakestream.core.metadata.DeleteOptions;
import dev.lakestream.core.metadata.GetOptions;
import dev.lakestream.core.metadata.MetadataStore;
import dev.lakestream.core.metadata.PutOptions;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Where durable cursors live: {@code <root>/cursors/<streamId>/<url-encoded name>}, partition key the stream
 * id (so a stream's cursors sit on the shard of its index), value {@link CursorCodec}'s bytes.
 */
public final class CursorStore {

    private final MetadataStore metadata;
    private final String root;

    public CursorStore(MetadataStore metadata, String root) {
        this.metadata = metadata;
        this.root = root;
    }

    public String key(long streamId, String name) {
        if (name.isEmpty()) {
            throw new IllegalArgumentException("cursor name must not be empty (stream " + streamId + ")");
        }
        return dir(streamId) + URLEncoder.encode(name, StandardCharsets.UTF_8);
    }

    private String dir(long streamId) {
        return root + "/cursors/" + streamId + "/";
    }

    public CompletableFuture<Optional<CursorState>> load(long streamId, String name) {
        String key = key(streamId, name);
        return metadata.get(key, GetOptions.DEFAULT.partitionKey(IndexKey.partitionKey(streamId)))
                .thenApply(r -> r.map(rec -> CursorCodec.decode(rec.value(), key)));
    }

    public CompletableFuture<Void> save(long streamId, String name, CursorState state) {
        return metadata.put(
                        key(streamId, name),
                        CursorCodec.encode(state),
                        PutOptions.DEFAULT.partitionKey(IndexKey.partitionKey(streamId)))
                .thenApply(p -> null);
    }

    public CompletableFuture<Boolean> delete(long streamId, String name) {
        return metadata.delete(
                key(streamId, name), DeleteOptions.DEFAULT.partitionKey(IndexKey.partitionKey(streamId)));
    }

    /** The names of the stream's durable cursors. */
    public CompletableFuture<List<String>> list(long streamId) {
        String dir = dir(streamId);
        return metadata.list(dir, root + "/cursors/" + streamId + "//", Optional.of(IndexKey.partitionKey(streamId)))
                .thenApply(keys -> keys.stream()
                        .filter(k -> k.startsWith(dir))
                        .map(k -> URLDecoder.decode(k.substring(dir.length()), StandardCharsets.UTF_8))
                        .toList());
    }

    /** Deletes every cursor of the stream. */
    public CompletableFuture<Void> deleteAll(long streamId) {
        return metadata.deleteRange(
                dir(streamId), root + "/cursors/" + streamId + "//", Optional.of(IndexKey.partitionKey(streamId)));
    }
}
