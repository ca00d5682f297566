package dev.lakestream.core.catalog;

import com.fasterxml.jackson.core.type.TypeReference;
import dev.lakestream.core.concurrent.Futures;
import dev.lakestream.core.metadata.KeyAlreadyExistsException;
import dev.lakestream.core.metadata.MetadataStore;
import dev.lakestream.core.metadata.PutOptions;
import dev.lakestream.core.metadata.Record;
import dev.lakestream.core.metadata.UnexpectedVersionException;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Streams by namespace and name, each bound to a numeric stream id.
 *
 * <p>Keys (under {@code root}, default {@code /lakestream}):
 * <ul>
 *   <li>{@code <root>/streams/<namespace>/<name>}: JSON {@code {"id", "deleted", "createdAt", "properties"}}.
 *       Names are URL-encoded, so a name may hold {@code '/'} and still be one key level.</li>
 *   <li>{@code <root>/stream-ids/<id>}: JSON {@code {"namespace", "name"}}, the way back from an id.</li>
 * </ul>
 * and, outside the root, shared with Ursa and every other root in the namespace (see {@link StreamIds}):
 * <ul>
 *   <li>{@code /stream-id-generator}: written unconditionally to draw an id (its new version id).</li>
 *   <li>{@code /stream-id/<id>}: the id's registration, JSON {@code {"key": "<namespace>/<name>"}}, written
 *       put-if-absent.</li>
 * </ul>
 * A drawn id that is registered already (by Ursa, another root, anyone) or has a back-pointer already (handed out
 * by the previous version's generator {@code <root>/stream-id-generator}, which this version no longer writes) is
 * skipped, so ids are never handed out twice, even after deletes; streams of the previous version keep their ids
 * and are registered when looked up.
 *
 * <p>Delete leaves a tombstone: the name's record stays with {@code deleted = true}. {@link #open} of a
 * tombstoned name fails; {@link #create} of it makes a new stream with a new id, so data written under
 * the old id can never reappear under the name. The id's registration and back-pointer stay too (Ursa's older
 * code deletes {@code /stream-id/<id>}): they are what keeps the id from ever being handed out again.
 */
public final class StreamCatalog {

    private final MetadataStore metadata;
    private final String root;
    private final StreamIds ids;

    public StreamCatalog(MetadataStore metadata, String root) {
        this(metadata, root, StreamIds.MAX_DRAWS);
    }

    /** With at most {@code maxDraws} ids drawn per create (tests). */
    StreamCatalog(MetadataStore metadata, String root, int maxDraws) {
        this.metadata = metadata;
        this.root = root;
        this.ids = new StreamIds(metadata, root, maxDraws);
    }

    /** Creates a stream; fails with {@link CatalogException.Reason#ALREADY_EXISTS} when a live one has the name. */
    public CompletableFuture<StreamInfo> create(String namespace, String name, Map<String, String> properties) {
        String key = streamKey(namespace, name);
        return metadata.get(key)
                .thenCompose(existing -> {
                    if (existing.isPresent()
                            && !decode(namespace, name, existing.get()).deleted()) {
                        throw new CatalogException(
                                CatalogException.Reason.ALREADY_EXISTS,
                                "stream " + namespace + "/" + name + " already exists");
                    }
                    long expected = existing.map(r -> r.version().versionId()).orElse(PutOptions.ABSENT);
                    // The id is claimed (registered, back-pointer written) before the name's record points at it.
                    return ids.claim(namespace, name).thenCompose(id -> {
                        long now = System.currentTimeMillis();
                        StreamInfo info = new StreamInfo(namespace, name, id, false, now, properties, 0);
                        return metadata.put(key, encode(info), PutOptions.ifVersion(expected))
                                .thenApply(
                                        put -> withVersion(info, put.version().versionId()));
                    });
                })
                .exceptionallyCompose(e -> {
                    Throwable c = Futures.unwrap(e);
                    if (c instanceof KeyAlreadyExistsException || c instanceof UnexpectedVersionException) {
                        return CompletableFuture.failedFuture(new CatalogException(
                                CatalogException.Reason.ALREADY_EXISTS,
                                "stream " + namespace + "/" + name + " was created concurrently"));
                    }
                    return CompletableFuture.failedFuture(c);
                });
    }

    /** The live stream of that name; fails with NOT_FOUND or DELETED. */
    public CompletableFuture<StreamInfo> open(String namespace, String name) {
        return lookup(namespace, name).thenApply(info -> {
            if (info.isEmpty()) {
                throw new CatalogException(
                        CatalogException.Reason.NOT_FOUND, "stream " + namespace + "/" + name + " does not exist");
            }
            if (info.get().deleted()) {
                throw new CatalogException(
                        CatalogException.Reason.DELETED,
                        "stream " + namespace + "/" + name + " was deleted (id "
                                + info.get().id() + ")");
            }
            return info.get();
        });
    }

    /**
     * The catalog record of that name, live or tombstone, or empty. A live stream's id is registered at
     * {@code /stream-id/<id>} on the way if it is not yet (a stream the previous version created).
     */
    public CompletableFuture<Optional<StreamInfo>> lookup(String namespace, String name) {
        return metadata.get(streamKey(namespace, name))
                .thenApply(r -> r.map(rec -> decode(namespace, name, rec)))
                .thenCompose(info -> info.isEmpty()
                        ? CompletableFuture.completedFuture(info)
                        : ids.ensureRegistered(info.get()).thenApply(Optional::of));
    }

    /** The live streams of a namespace, by name. */
    public CompletableFuture<List<StreamInfo>> list(String namespace) {
        String dir = root + "/streams/" + encodeName(namespace) + "/";
        return metadata.rangeScan(dir, root + "/streams/" + encodeName(namespace) + "//", Optional.empty(), 0)
                .thenApply(records -> records.stream()
                        .map(r -> decode(namespace, decodeName(r.key().substring(dir.length())), r))
                        .filter(s -> !s.deleted())
                        .toList());
    }

    /** Replaces the properties if the record is still at {@code info.version()}; else CONCURRENT_UPDATE. */
    public CompletableFuture<StreamInfo> updateProperties(StreamInfo info, Map<String, String> properties) {
        StreamInfo updated = new StreamInfo(
                info.namespace(), info.name(), info.id(), info.deleted(), info.createdAt(), properties, info.version());
        return metadata.put(
                        streamKey(info.namespace(), info.name()), encode(updated), PutOptions.ifVersion(info.version()))
                .thenApply(put -> withVersion(updated, put.version().versionId()))
                .exceptionallyCompose(e -> CompletableFuture.failedFuture(
                        Futures.unwrap(e) instanceof UnexpectedVersionException
                                ? new CatalogException(
                                        CatalogException.Reason.CONCURRENT_UPDATE,
                                        "stream " + info.fullName() + " was changed concurrently (expected version "
                                                + info.version() + ")")
                                : Futures.unwrap(e)));
    }

    /**
     * Marks the stream deleted (a tombstone); its data is reclaimed by trimming and garbage collection. The id's
     * registration {@code /stream-id/<id>} and back-pointer stay, so the id is never handed out again.
     */
    public CompletableFuture<StreamInfo> delete(String namespace, String name) {
        return open(namespace, name).thenCompose(info -> {
            StreamInfo tomb = new StreamInfo(
                    namespace, name, info.id(), true, info.createdAt(), info.properties(), info.version());
            return metadata.put(streamKey(namespace, name), encode(tomb), PutOptions.ifVersion(info.version()))
                    .thenApply(put -> withVersion(tomb, put.version().versionId()));
        });
    }

    /** The namespace and name an id was created for, if the id was ever handed out by this catalog. */
    public CompletableFuture<Optional<Map<String, String>>> nameOf(long id) {
        return metadata.get(idKey(id))
                .thenApply(r -> r.map(rec -> {
                    try {
                        return CatalogJson.MAPPER.readValue(rec.value(), new TypeReference<Map<String, String>>() {});
                    } catch (java.io.IOException e) {
                        throw new CompletionException(e);
                    }
                }));
    }

    /** Every stream id this catalog ever handed out (live or deleted), in no particular order. */
    public CompletableFuture<List<Long>> allIds() {
        String dir = root + "/stream-ids/";
        return metadata.list(dir, root + "/stream-ids//", Optional.empty())
                .thenApply(keys -> keys.stream()
                        .map(k -> Long.parseLong(k.substring(dir.length())))
                        .toList());
    }

    /** Whether {@code id} is the id of a live stream (its name's record still points at it, not deleted). */
    public CompletableFuture<Boolean> isLive(long id) {
        return nameOf(id)
                .thenCompose(name -> name.isEmpty()
                        ? CompletableFuture.completedFuture(false)
                        : lookup(name.get().get("namespace"), name.get().get("name"))
                                .thenApply(info -> info.isPresent()
                                        && info.get().id() == id
                                        && !info.get().deleted()));
    }

    private String streamKey(String namespace, String name) {
        if (namespace.isEmpty() || name.isEmpty()) {
            throw new IllegalArgumentException(
                    "stream namespace and name must not be empty: '" + namespace + "/" + name + "'");
        }
        return root + "/streams/" + encodeName(namespace) + "/" + encodeName(name);
    }

    private String idKey(long id) {
        return ids.backPointerKey(id);
    }

    static String encodeName(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    static String decodeName(String s) {
        return URLDecoder.decode(s, StandardCharsets.UTF_8);
    }

    private static StreamInfo withVersion(StreamInfo i, long version) {
        return new StreamInfo(i.namespace(), i.name(), i.id(), i.deleted(), i.createdAt(), i.properties(), version);
    }

    private static byte[] encode(StreamInfo info) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", info.id());
        m.put("deleted", info.deleted());
        m.put("createdAt", info.createdAt());
        m.put("properties", info.properties());
        return CatalogJson.bytes(m);
    }

    private static StreamInfo decode(String namespace, String name, Record r) {
        try {
            StoredStream s = CatalogJson.MAPPER.readValue(r.value(), StoredStream.class);
            return new StreamInfo(
                    namespace,
                    name,
                    s.id,
                    s.deleted,
                    s.createdAt,
                    s.properties == null ? Map.of() : s.properties,
                    r.version().versionId());
        } catch (java.io.IOException e) {
            throw new IllegalStateException("catalog record '" + r.key() + "' is not valid JSON: " + e.getMessage(), e);
        }
    }

    /** The JSON shape of a stream record. */
    @com.fasterxml.jackson.annotation.JsonIgnoreProperties(ignoreUnknown = true)
    static final class StoredStream {
        public long id;
        public boolean deleted;
        public long createdAt;
        public Map<String, String> properties;
    }
}
