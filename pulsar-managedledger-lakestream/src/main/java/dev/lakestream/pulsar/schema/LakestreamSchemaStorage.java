package dev.lakestream.pulsar.schema;

import dev.lakestream.core.metadata.DeleteOptions;
import dev.lakestream.core.metadata.GetOptions;
import dev.lakestream.core.metadata.KeyAlreadyExistsException;
import dev.lakestream.core.metadata.MetadataStore;
import dev.lakestream.core.metadata.MetadataStoreException;
import dev.lakestream.core.metadata.PutOptions;
import dev.lakestream.core.metadata.Record;
import dev.lakestream.core.metadata.UnexpectedVersionException;
import dev.lakestream.pulsar.schema.SchemaRecords.Entry;
import dev.lakestream.pulsar.schema.SchemaRecords.Head;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.commons.lang3.tuple.Pair;
import org.apache.pulsar.broker.service.schema.exceptions.InvalidSchemaDataException;
import org.apache.pulsar.broker.service.schema.exceptions.SchemaException;
import org.apache.pulsar.common.protocol.schema.SchemaStorage;
import org.apache.pulsar.common.protocol.schema.SchemaVersion;
import org.apache.pulsar.common.protocol.schema.StoredSchema;
import org.apache.pulsar.common.schema.LongSchemaVersion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pulsar's {@link SchemaStorage} on a Lakestream {@link MetadataStore} (Oxia or the embedded store), with the
 * semantics of Pulsar 5.0.1's {@code BookkeeperSchemaStorage}:
 *
 * <ul>
 *   <li>versions of a schema id are {@link LongSchemaVersion}s, dense from 0; a put appends the next one. Every
 *       put ends with one compare-and-set of the schema's head record, so concurrent puts from several brokers get
 *       distinct consecutive versions (a put that loses the race re-reads and retries);</li>
 *   <li>{@link #put(String, Function)} runs the registry's function on a snapshot of all versions and appends only
 *       if no other put committed in between (else the function runs again on the new snapshot, as upstream); a
 *       {@code null} pair from the function writes nothing and completes with {@code null};</li>
 *   <li>a put whose hash is non-empty and equal to the latest version's returns that version (the storage-level
 *       check of older Pulsar; 5.0.1 leaves it to the registry, which never sends such a put, so both behave the
 *       same for the broker);</li>
 *   <li>{@code get} of a missing schema or version completes with {@code null}; {@code getAll} of a missing schema
 *       with an empty list;</li>
 *   <li>{@code delete(key)} and {@code delete(key, forcefully)} remove every version (the registry's soft delete is
 *       a put of a tombstone, not a storage delete), completing with version {@code -1}, or {@code null} when
 *       there was nothing; the next put starts again at version 0. Forced delete also removes a corrupt schema.</li>
 * </ul>
 *
 * <p>Errors are {@link SchemaException}s naming the schema id and key: bad input is
 * {@link InvalidSchemaDataException}; store failures and corrupt records are <em>recoverable</em> ones, because the
 * registry force-deletes a schema whose read fails with a non-recoverable error. Results are delivered on the
 * executor given (the broker's), never on a metadata-store thread.
 */
public final class LakestreamSchemaStorage implements SchemaStorage {

    private static final Logger LOG = LoggerFactory.getLogger(LakestreamSchemaStorage.class);

    /** Puts that lose the compare-and-set this many times in a row give up (each loss is another put winning). */
    static final int MAX_ATTEMPTS = 64;
    /** What a delete that removed something completes with, as upstream. */
    static final LongSchemaVersion DELETED = new LongSchemaVersion(-1);

    private final MetadataStore store;
    private final SchemaRecords records;
    private final Executor executor;
    private final SchemaDataCache cache = new SchemaDataCache(16L * 1024 * 1024);
    private final SecureRandom random = new SecureRandom();

    /**
     * @param store the Lakestream metadata store (not owned: {@link #close()} leaves it open)
     * @param metadataRoot the Lakestream metadata root ({@code lakestream.metadata.root})
     * @param executor where results and the registry's put function run
     */
    public LakestreamSchemaStorage(MetadataStore store, String metadataRoot, Executor executor) {
        this.store = Objects.requireNonNull(store, "store");
        this.records = new SchemaRecords(Objects.requireNonNull(metadataRoot, "metadataRoot"));
        this.executor = Objects.requireNonNull(executor, "executor");
    }

    @Override
    public void start() {
        LOG.info(
                "Schema registry storage on the Lakestream metadata store {} under '{}'",
                store.address(),
                records.headKey(""));
    }

    @Override
    public void close() {
        // The metadata store belongs to the managed-ledger storage, which closes it.
    }

    // ---- reads ----

    /** A decoded head and the store version it was read at (what the next compare-and-set expects). */
    private record HeadRecord(String key, Head head, long versionId) {}

    @Override
    @SuppressWarnings("ReferenceEquality") // SchemaVersion.Latest is a sentinel instance, not a value
    public CompletableFuture<StoredSchema> get(String key, SchemaVersion version) {
        return deliver(() -> {
            checkId(key);
            boolean latestWanted = version == SchemaVersion.Latest;
            long wanted = -1;
            if (latestWanted) {
                wanted = -1;
            } else if (version instanceof LongSchemaVersion l) {
                wanted = l.getVersion();
            } else {
                throw new InvalidSchemaDataException("schema '" + key + "': version " + version + " ("
                        + (version == null ? "null" : version.getClass().getName())
                        + ") is not a LongSchemaVersion nor SchemaVersion.Latest");
            }
            long wantedVersion = wanted;
            return readHead(key).thenCompose(head -> {
                if (head.isEmpty()) {
                    return CompletableFuture.completedFuture(null);
                }
                long latest = head.get().head().latestVersion();
                long v = latestWanted ? latest : wantedVersion;
                if (v < 0 || v > latest) {
                    return CompletableFuture.completedFuture(null);
                }
                return readData(key, head.get(), v);
            });
        });
    }

    @Override
    public CompletableFuture<List<CompletableFuture<StoredSchema>>> getAll(String key) {
        return deliver(() -> {
            checkId(key);
            return readHead(key).thenApply(head -> allVersions(key, head));
        });
    }

    private List<CompletableFuture<StoredSchema>> allVersions(String id, Optional<HeadRecord> head) {
        List<CompletableFuture<StoredSchema>> out = new ArrayList<>();
        if (head.isPresent()) {
            for (long v = 0; v <= head.get().head().latestVersion(); v++) {
                out.add(deliver(readData(id, head.get(), v)));
            }
        }
        return out;
    }

    private CompletableFuture<Optional<HeadRecord>> readHead(String id) {
        String key = records.headKey(id);
        return wrapped(() -> store.get(key, GetOptions.DEFAULT.partitionKey(key)), "read of schema head '" + key + "'")
                .thenApply(r -> r.map(rec -> new HeadRecord(
                        key, decodeHead(key, rec.value()), rec.version().versionId())));
    }

    private static Head decodeHead(String key, byte[] value) {
        try {
            return SchemaRecords.decodeHead(key, value);
        } catch (SchemaRecordCorruptedException e) {
            throw new CompletionException(e);
        }
    }

    private CompletableFuture<StoredSchema> readData(String id, HeadRecord head, long v) {
        String key = records.dataKey(id, v, head.head().entries().get((int) v).nonce());
        byte[] cached = cache.get(key);
        if (cached != null) {
            return CompletableFuture.completedFuture(new StoredSchema(cached, new LongSchemaVersion(v)));
        }
        return wrapped(
                        () -> store.get(key, GetOptions.DEFAULT.partitionKey(head.key())),
                        "read of schema data record '" + key + "'")
                .thenApply(r -> {
                    try {
                        if (r.isEmpty()) {
                            throw SchemaRecords.corrupt(
                                    key,
                                    "schema data record",
                                    "is missing (head '" + head.key() + "' names it as version " + v + ")");
                        }
                        byte[] data = SchemaRecords.decodeData(key, v, r.get().value());
                        cache.put(key, data);
                        return new StoredSchema(data, new LongSchemaVersion(v));
                    } catch (SchemaRecordCorruptedException e) {
                        throw new CompletionException(e);
                    }
                });
    }

    // ---- writes ----

    @Override
    public CompletableFuture<SchemaVersion> put(String key, byte[] value, byte[] hash) {
        return deliver(() -> {
            checkId(key);
            Pair<byte[], byte[]> pair = Pair.of(value, hash);
            return write(key, head -> CompletableFuture.completedFuture(pair), 1);
        });
    }

    @Override
    public CompletableFuture<SchemaVersion> put(
            String key,
            Function<CompletableFuture<List<CompletableFuture<StoredSchema>>>, CompletableFuture<Pair<byte[], byte[]>>>
                    fn) {
        return deliver(() -> {
            checkId(key);
            Objects.requireNonNull(fn, "fn");
            return write(key, head -> fn.apply(CompletableFuture.completedFuture(allVersions(key, head))), 1);
        });
    }

    /**
     * Reads the head, asks {@code decide} for the data and hash, writes the data record, then the head by
     * compare-and-set; on a lost race, removes its data record and starts again.
     */
    private CompletableFuture<SchemaVersion> write(
            String id, Function<Optional<HeadRecord>, CompletableFuture<Pair<byte[], byte[]>>> decide, int attempt) {
        String headKey = records.headKey(id);
        return readHead(id)
                .thenComposeAsync(
                        head -> decide.apply(head).thenCompose(pair -> {
                            if (pair == null) {
                                return CompletableFuture.completedFuture(null);
                            }
                            return append(id, headKey, head, pair, decide, attempt);
                        }),
                        executor);
    }

    private CompletableFuture<SchemaVersion> append(
            String id,
            String headKey,
            Optional<HeadRecord> head,
            Pair<byte[], byte[]> pair,
            Function<Optional<HeadRecord>, CompletableFuture<Pair<byte[], byte[]>>> decide,
            int attempt) {
        byte[] data = pair.getLeft();
        byte[] hash = pair.getRight();
        try {
            checkData(id, data, hash);
        } catch (SchemaException e) {
            return CompletableFuture.failedFuture(e);
        }
        if (head.isPresent()) {
            List<Entry> entries = head.get().head().entries();
            byte[] latestHash = entries.get(entries.size() - 1).hash();
            if (latestHash.length > 0 && Arrays.equals(latestHash, hash)) {
                return CompletableFuture.completedFuture(
                        new LongSchemaVersion(head.get().head().latestVersion()));
            }
        }
        long version = head.map(h -> (long) h.head().entries().size()).orElse(0L);
        long nonce = random.nextLong();
        Entry entry = new Entry(hash.clone(), nonce);
        Head next = head.map(h -> h.head().plus(entry)).orElseGet(() -> new Head(List.of(entry)));
        byte[] headBytes = SchemaRecords.encodeHead(next);
        if (headBytes.length > SchemaRecords.MAX_HEAD_BYTES) {
            return CompletableFuture.failedFuture(new SchemaException(
                    true,
                    "schema '" + id + "' has "
                            + next.entries().size() + " versions, its head '" + headKey + "' would be "
                            + headBytes.length
                            + " bytes, over the limit of " + SchemaRecords.MAX_HEAD_BYTES
                            + "; delete the schema (pulsar-admin schemas delete --force) to start again"));
        }
        String dataKey = records.dataKey(id, version, nonce);
        PutOptions headOptions = (head.isPresent()
                        ? PutOptions.ifVersion(head.get().versionId())
                        : PutOptions.ifAbsent())
                .partitionKey(headKey);
        return wrapped(
                        () -> store.put(
                                dataKey,
                                SchemaRecords.encodeData(version, data),
                                PutOptions.DEFAULT.partitionKey(headKey)),
                        "write of schema data record '" + dataKey + "'")
                .thenCompose(written -> raw(() -> store.put(headKey, headBytes, headOptions))
                        // the stage to continue with, flattened at once below
                        .<CompletionStage<SchemaVersion>>handle((ok, err) -> {
                            if (err == null) {
                                cache.put(dataKey, data);
                                LOG.debug("schema '{}': version {} stored ({} bytes)", id, version, data.length);
                                return CompletableFuture.<SchemaVersion>completedFuture(new LongSchemaVersion(version));
                            }
                            Throwable cause = unwrap(err);
                            if (!(cause instanceof KeyAlreadyExistsException
                                    || cause instanceof UnexpectedVersionException)) {
                                // The head write may still have landed: keep its data record.
                                return CompletableFuture.<SchemaVersion>failedFuture(
                                        wrap(cause, "write of schema head '" + headKey + "'"));
                            }
                            deleteQuietly(dataKey, headKey, "lost a concurrent put");
                            if (attempt >= MAX_ATTEMPTS) {
                                return CompletableFuture.<SchemaVersion>failedFuture(new SchemaException(
                                        true,
                                        "schema '" + id + "': gave up after " + attempt + " puts lost the race to"
                                                + " concurrent puts on '" + headKey + "'"));
                            }
                            LOG.debug("schema '{}': head changed under put attempt {}, retrying", id, attempt);
                            return write(id, decide, attempt + 1);
                        })
                        .thenCompose(Function.identity()));
    }

    private static void checkData(String id, byte[] data, byte[] hash) throws SchemaException {
        if (data == null) {
            throw new InvalidSchemaDataException("schema '" + id + "': the schema data is null");
        }
        if (hash == null) {
            throw new InvalidSchemaDataException("schema '" + id + "': the schema hash is null");
        }
        if (data.length > SchemaRecords.MAX_SCHEMA_BYTES) {
            throw new InvalidSchemaDataException("schema '" + id + "': " + data.length + " bytes is over the"
                    + " limit of " + SchemaRecords.MAX_SCHEMA_BYTES + " bytes this schema storage keeps per version");
        }
        if (hash.length > SchemaRecords.MAX_HASH_BYTES) {
            throw new InvalidSchemaDataException("schema '" + id + "': a " + hash.length + "-byte hash is over the"
                    + " limit of " + SchemaRecords.MAX_HASH_BYTES + " bytes");
        }
    }

    // ---- deletes ----

    @Override
    public CompletableFuture<SchemaVersion> delete(String key) {
        return delete(key, false);
    }

    @Override
    public CompletableFuture<SchemaVersion> delete(String key, boolean forcefully) {
        return deliver(() -> {
            checkId(key);
            return delete(key, forcefully, 1);
        });
    }

    private CompletableFuture<SchemaVersion> delete(String id, boolean forcefully, int attempt) {
        String headKey = records.headKey(id);
        return wrapped(
                        () -> store.get(headKey, GetOptions.DEFAULT.partitionKey(headKey)),
                        "read of schema head '" + headKey + "'")
                .thenCompose(found -> {
                    if (found.isEmpty()) {
                        return CompletableFuture.completedFuture(null);
                    }
                    Record rec = found.get();
                    Head head;
                    try {
                        head = SchemaRecords.decodeHead(headKey, rec.value());
                    } catch (SchemaRecordCorruptedException e) {
                        if (!forcefully) {
                            return CompletableFuture.failedFuture(new SchemaRecordCorruptedException(
                                    e.getMessage() + "; delete it with pulsar-admin schemas delete --force"));
                        }
                        LOG.warn(
                                "schema '{}': force-deleting a corrupt head and everything under it: {}",
                                id,
                                e.getMessage());
                        head = null;
                    }
                    Head h = head;
                    DeleteOptions options =
                            DeleteOptions.ifVersion(rec.version().versionId()).partitionKey(headKey);
                    return raw(() -> store.delete(headKey, options))
                            // the stage to continue with, flattened at once below
                            .<CompletionStage<SchemaVersion>>handle((deleted, err) -> {
                                if (err != null) {
                                    Throwable cause = unwrap(err);
                                    if (cause instanceof UnexpectedVersionException && attempt < MAX_ATTEMPTS) {
                                        return delete(
                                                id, forcefully, attempt + 1); // a put got in first: delete that too
                                    }
                                    return CompletableFuture.<SchemaVersion>failedFuture(
                                            wrap(cause, "delete of schema head '" + headKey + "'"));
                                }
                                if (!deleted) {
                                    return CompletableFuture.<SchemaVersion>completedFuture(null);
                                }
                                return deleteData(id, headKey, h).thenApply(v -> (SchemaVersion) DELETED);
                            })
                            .thenCompose(Function.identity());
                });
    }

    /**
     * Removes the data records of a deleted head: exactly those it named (records of a put racing the delete, or
     * of a schema re-created at once, have other nonces and stay), or everything under a corrupt head.
     * Failures leave orphans (logged), never an error: the schema is already gone for readers.
     */
    private CompletableFuture<Void> deleteData(String id, String headKey, Head head) {
        CompletableFuture<Void> done;
        if (head == null) {
            done = raw(() -> store.deleteRange(headKey + "/", headKey + "//", Optional.of(headKey)));
        } else {
            List<CompletableFuture<Boolean>> deletes = new ArrayList<>();
            for (int v = 0; v < head.entries().size(); v++) {
                String dataKey = records.dataKey(id, v, head.entries().get(v).nonce());
                cache.remove(dataKey);
                deletes.add(raw(() -> store.delete(dataKey, DeleteOptions.DEFAULT.partitionKey(headKey))));
            }
            done = CompletableFuture.allOf(deletes.toArray(new CompletableFuture<?>[0]));
        }
        return done.exceptionally(t -> {
            LOG.warn(
                    "schema '{}': deleted, but removing its data records under '{}/' failed; they stay as orphans",
                    id,
                    headKey,
                    unwrap(t));
            return null;
        });
    }

    private void deleteQuietly(String dataKey, String headKey, String why) {
        // the callback logs a failure: an orphan record is harmless.
        var unused = raw(() -> store.delete(dataKey, DeleteOptions.DEFAULT.partitionKey(headKey)))
                .whenComplete((ok, t) -> {
                    if (t != null) {
                        LOG.warn(
                                "schema data record '{}' ({}) could not be removed; it stays as an orphan",
                                dataKey,
                                why,
                                unwrap(t));
                    }
                });
    }

    // ---- versions ----

    /** The 8-byte big-endian long of a {@link LongSchemaVersion} (of a longer array, the first 8 bytes, as upstream). */
    @Override
    public SchemaVersion versionFromBytes(byte[] version) {
        if (version == null || version.length < Long.BYTES) {
            throw new IllegalArgumentException("a schema version is an 8-byte big-endian long, got "
                    + (version == null ? "null" : version.length + " bytes"));
        }
        return new LongSchemaVersion(ByteBuffer.wrap(version).getLong());
    }

    // ---- plumbing ----

    private static void checkId(String id) throws InvalidSchemaDataException {
        if (id == null || id.isEmpty()) {
            throw new InvalidSchemaDataException("the schema id must not be " + (id == null ? "null" : "empty"));
        }
    }

    /** A store call whose synchronous failure becomes a failed future. */
    private static <T> CompletableFuture<T> raw(Supplier<CompletableFuture<T>> call) {
        try {
            return call.get();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** A store call whose failure becomes a {@link SchemaException} naming {@code what}. */
    private static <T> CompletableFuture<T> wrapped(Supplier<CompletableFuture<T>> call, String what) {
        return raw(call).exceptionallyCompose(t -> CompletableFuture.failedFuture(wrap(unwrap(t), what)));
    }

    private static Throwable wrap(Throwable t, String what) {
        if (t instanceof SchemaException) {
            return t;
        }
        if (t instanceof MetadataStoreException || t instanceof RuntimeException) {
            SchemaException e = new SchemaException(true, what + " failed: " + t.getMessage());
            e.initCause(t);
            return e;
        }
        return t;
    }

    private static Throwable unwrap(Throwable t) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    private interface Body<T> {
        CompletableFuture<T> run() throws SchemaException;
    }

    /** Runs {@code body} (synchronous failures become a failed future) and completes on the executor. */
    private <T> CompletableFuture<T> deliver(Body<T> body) {
        CompletableFuture<T> f;
        try {
            f = body.run();
        } catch (SchemaException | RuntimeException e) {
            f = CompletableFuture.failedFuture(e);
        }
        return deliver(f);
    }

    private <T> CompletableFuture<T> deliver(CompletableFuture<T> f) {
        CompletableFuture<T> out = new CompletableFuture<>();
        // the callback completes out either way.
        var unused = f.whenCompleteAsync(
                (r, t) -> {
                    if (t != null) {
                        out.completeExceptionally(unwrap(t));
                    } else {
                        out.complete(r);
                    }
                },
                executor);
        return out;
    }
}
