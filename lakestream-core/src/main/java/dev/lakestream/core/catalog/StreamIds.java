package dev.lakestream.core.catalog;

import dev.lakestream.core.concurrent.Futures;
import dev.lakestream.core.metadata.KeyAlreadyExistsException;
import dev.lakestream.core.metadata.MetadataStore;
import dev.lakestream.core.metadata.PutOptions;
import dev.lakestream.core.metadata.PutResult;
import dev.lakestream.core.metadata.Record;
import dev.lakestream.core.metadata.UnexpectedVersionException;
import java.io.IOException;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Numeric stream ids, drawn and registered the way Ursa does it, and unique in the whole metadata namespace
 * whichever generator handed them out.
 *
 * <h2>Keys</h2>
 * <ul>
 *   <li>{@code /stream-id-generator} (top level, no root, no partition key; Ursa's generator): written
 *       unconditionally to draw an id; the put's new version id is the candidate id.</li>
 *   <li>{@code /stream-id/<id>} (top level, no partition key; Ursa's registration): JSON {@code {"key": "<namespace>/<name>"}},
 *       Ursa's {@code StreamProperties}, with our namespace and name (as given, not URL-encoded) as the key.
 *       Written put-if-absent.</li>
 *   <li>{@code <root>/stream-ids/<id>}: JSON {@code {"namespace", "name"}}, this catalog's way back from an id
 *       (garbage collection and the operator tool list them). Written put-if-absent.</li>
 * </ul>
 *
 * <h2>Why an id is unique</h2>
 * Version ids are per Oxia shard: two generator keys (ours of the previous version,
 * {@code <root>/stream-id-generator}, and Ursa's, or anyone's) can hand out the same number, and the index keys
 * ({@code %020d(id)-...}) are global. So a drawn id is only a candidate; it is <em>claimed</em> by two
 * put-if-absent writes, in this order:
 * <ol>
 *   <li>{@code /stream-id/<id>}: present means some system (Ursa, another Lakestream root, a generator on another
 *       shard) registered the id: draw again.</li>
 *   <li>{@code <root>/stream-ids/<id>}: present means the previous version of this catalog handed the id out
 *       from its own generator (it wrote this back-pointer for every id, and no registration): draw again,
 *       after handing the registration just made over to that stream, so the old id is registered from now
 *       on.</li>
 * </ol>
 * Each check is one linearizable conditional write, so two drawers can never both win one id, and an id once
 * claimed in either place is never accepted again. Both claims happen before the stream's own record is
 * written, so nothing ever points at an id that is not claimed. The registration goes first because the
 * back-pointer is what garbage collection trusts: a back-pointer with no live stream behind it makes GC delete
 * that id's index records, so we never write one for an id another system may own.
 *
 * <p>This is the simplest design that is correct on upgrade: the previous version's ids need no migration
 * step before new streams can be created, because each of them already has its back-pointer. Registering old
 * ids is still done, for Ursa's listing of {@code /stream-id/} and for other roots: when a draw hits one, and
 * when a live stream is looked up ({@link #ensureRegistered}).
 *
 * <p>Limits: one create draws at most {@link #MAX_DRAWS} ids, then it fails naming the generator key (each
 * draw moves the generator on, so a later create continues past the ids already tried; right after an upgrade on
 * a namespace of several shards the first draws may walk through the old ids). Nothing here can protect an id
 * from a writer that does not check: Ursa registers with an unconditional put (but it draws from the same
 * generator key, whose version ids never repeat), and a process of the previous Lakestream version draws from
 * {@code <root>/stream-id-generator} and overwrites the back-pointer without looking: while processes of both
 * versions create streams at once (a rolling upgrade), an id can be handed out twice.
 */
final class StreamIds {

    /** Ursa's id generator; its version id after an unconditional put is the drawn id. */
    static final String GENERATOR_KEY = "/stream-id-generator";
    /** Ursa's registrations, {@code /stream-id/<id>}. */
    static final String REGISTRATION_PREFIX = "/stream-id/";
    /** How many ids one create may draw before it gives up. */
    static final int MAX_DRAWS = 100;

    private static final Logger log = LoggerFactory.getLogger(StreamIds.class);

    private final MetadataStore metadata;
    private final String root;
    private final int maxDraws;
    /** Ids seen registered by this process: looking one up again costs no read. */
    private final Set<Long> registered = ConcurrentHashMap.newKeySet();

    StreamIds(MetadataStore metadata, String root, int maxDraws) {
        this.metadata = metadata;
        this.root = root;
        this.maxDraws = maxDraws;
    }

    static String registrationKey(long id) {
        return REGISTRATION_PREFIX + id;
    }

    String backPointerKey(long id) {
        return root + "/stream-ids/" + id;
    }

    /** Draws an id for the stream and claims it (registration and back-pointer written); see the class doc. */
    CompletableFuture<Long> claim(String namespace, String name) {
        return claim(namespace, name, 1);
    }

    private CompletableFuture<Long> claim(String namespace, String name, int attempt) {
        if (attempt > maxDraws) {
            return CompletableFuture.failedFuture(new CatalogException(
                    CatalogException.Reason.NO_FREE_ID,
                    "stream " + namespace + "/" + name + ": " + maxDraws + " ids drawn from '" + GENERATOR_KEY
                            + "' were all taken already (registered under '" + REGISTRATION_PREFIX + "' or under '"
                            + root + "/stream-ids/'); creating it again draws further"));
        }
        return metadata.put(GENERATOR_KEY, new byte[0])
                .thenCompose(drawn -> tryClaim(namespace, name, drawn.version().versionId()))
                .thenCompose(claimed -> claimed.isPresent()
                        ? CompletableFuture.completedFuture(claimed.getAsLong())
                        : claim(namespace, name, attempt + 1));
    }

    /** The id if both claims succeed; empty if it is taken (draw again). */
    private CompletableFuture<OptionalLong> tryClaim(String namespace, String name, long id) {
        return metadata.put(registrationKey(id), registration(namespace + "/" + name), PutOptions.ifAbsent())
                .handle((put, e) -> {
                    if (e == null) {
                        return claimBackPointer(namespace, name, id, put);
                    }
                    if (Futures.unwrap(e) instanceof KeyAlreadyExistsException) {
                        log.debug("Stream id {} from '{}' is registered already: drawing another", id, GENERATOR_KEY);
                        return CompletableFuture.completedFuture(OptionalLong.empty());
                    }
                    return CompletableFuture.<OptionalLong>failedFuture(Futures.unwrap(e));
                })
                .thenCompose(f -> f);
    }

    private CompletableFuture<OptionalLong> claimBackPointer(
            String namespace, String name, long id, PutResult registration) {
        return metadata.put(backPointerKey(id), backPointer(namespace, name), PutOptions.ifAbsent())
                .handle((put, e) -> {
                    if (e == null) {
                        registered.add(id);
                        return CompletableFuture.completedFuture(OptionalLong.of(id));
                    }
                    if (Futures.unwrap(e) instanceof KeyAlreadyExistsException) {
                        log.info(
                                "Stream id {} belongs to a stream of the previous version ('{}' exists): registering"
                                        + " it for that stream, drawing another",
                                id,
                                backPointerKey(id));
                        return handOver(id, registration.version().versionId()).thenApply(v -> OptionalLong.empty());
                    }
                    return CompletableFuture.<OptionalLong>failedFuture(Futures.unwrap(e));
                })
                .thenCompose(f -> f);
    }

    /** Rewrites the registration we just made for an old id so that it names the id's own stream. */
    private CompletableFuture<Void> handOver(long id, long registrationVersion) {
        return metadata.get(backPointerKey(id)).thenCompose(r -> {
            Optional<String> owner = r.map(StreamIds::ownerOf);
            if (owner.isEmpty()) {
                return CompletableFuture.completedFuture(null);
            }
            return metadata.put(
                            registrationKey(id), registration(owner.get()), PutOptions.ifVersion(registrationVersion))
                    .handle((put, e) -> {
                        if (e != null && !(Futures.unwrap(e) instanceof UnexpectedVersionException)) {
                            throw new CompletionException(Futures.unwrap(e));
                        }
                        return null;
                    });
        });
    }

    /**
     * Registers a live stream's id at {@code /stream-id/<id>} when nothing is registered there: streams created
     * by the previous version have none. Once per id and process; a registration naming another key is left
     * alone (and logged: two systems then share the id).
     */
    CompletableFuture<StreamInfo> ensureRegistered(StreamInfo info) {
        if (info.deleted() || registered.contains(info.id())) {
            return CompletableFuture.completedFuture(info);
        }
        String key = registrationKey(info.id());
        return metadata.get(key)
                .thenCompose(existing -> {
                    if (existing.isPresent()) {
                        String holder = keyOf(existing.get());
                        if (!info.fullName().equals(holder)) {
                            log.warn(
                                    "Stream {} has id {}, but '{}' registers that id for '{}'",
                                    info.fullName(),
                                    info.id(),
                                    key,
                                    holder);
                        }
                        return CompletableFuture.completedFuture(null);
                    }
                    return metadata.put(key, registration(info.fullName()), PutOptions.ifAbsent())
                            .handle((put, e) -> {
                                if (e != null && !(Futures.unwrap(e) instanceof KeyAlreadyExistsException)) {
                                    throw new CompletionException(Futures.unwrap(e));
                                }
                                return null;
                            });
                })
                .thenApply(v -> {
                    registered.add(info.id());
                    return info;
                });
    }

    private static byte[] registration(String key) {
        return CatalogJson.bytes(Map.of("key", key));
    }

    private static byte[] backPointer(String namespace, String name) {
        return CatalogJson.bytes(Map.of("namespace", namespace, "name", name));
    }

    /** The {@code key} of a registration, or its raw text when it is not the JSON we expect. */
    private static String keyOf(Record r) {
        try {
            Object key = CatalogJson.MAPPER.readValue(r.value(), Map.class).get("key");
            return String.valueOf(key);
        } catch (IOException | RuntimeException e) {
            return new String(r.value(), java.nio.charset.StandardCharsets.UTF_8);
        }
    }

    /** {@code <namespace>/<name>} of a back-pointer. */
    private static String ownerOf(Record r) {
        try {
            Map<?, ?> m = CatalogJson.MAPPER.readValue(r.value(), Map.class);
            return m.get("namespace") + "/" + m.get("name");
        } catch (IOException e) {
            throw new IllegalStateException(
                    "stream id record '" + r.key() + "' is not valid JSON: " + e.getMessage(), e);
        }
    }
}
