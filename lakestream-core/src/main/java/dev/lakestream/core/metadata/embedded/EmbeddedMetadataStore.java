package dev.lakestream.core.metadata.embedded;

import dev.lakestream.core.concurrent.DaemonThreads;
import dev.lakestream.core.metadata.DeleteOptions;
import dev.lakestream.core.metadata.GetOptions;
import dev.lakestream.core.metadata.KeyAlreadyExistsException;
import dev.lakestream.core.metadata.KeyOrder;
import dev.lakestream.core.metadata.MetadataKeys;
import dev.lakestream.core.metadata.MetadataListeners;
import dev.lakestream.core.metadata.MetadataStore;
import dev.lakestream.core.metadata.MetadataStoreException;
import dev.lakestream.core.metadata.MetadataStoreUnavailableException;
import dev.lakestream.core.metadata.Notification;
import dev.lakestream.core.metadata.PutOptions;
import dev.lakestream.core.metadata.PutResult;
import dev.lakestream.core.metadata.Record;
import dev.lakestream.core.metadata.UnexpectedVersionException;
import dev.lakestream.core.metadata.Version;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Consumer;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.InfoLogLevel;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.Snapshot;
import org.rocksdb.Status;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A durable single-node {@link MetadataStore} on local disk (RocksDB), with Oxia's semantics: the same key
 * order, versions, conditional writes, sequence keys, ephemeral records and notifications. For a single broker
 * or for tests; one open store per directory (RocksDB's lock file; a second open fails naming the directory).
 *
 * <h2>Storage</h2>
 * Keys are stored in the order-preserving encoding of {@link KeyOrder}, so RocksDB's bytewise order is Oxia's
 * key order and ranges, floor/ceiling/lower/higher and the sequence-key search are plain iterator seeks. Three
 * column families: {@code records} (encoded key to version header + value), {@code ephemeral} (encoded key of
 * each ephemeral record) and {@code default} (the last version id and the last session id). Each write is one
 * atomic RocksDB write batch.
 *
 * <h2>Group commit</h2>
 * When {@link EmbeddedMetadataStoreConfig#sync()}, writes are acknowledged only once RocksDB's WAL is fsynced,
 * but not one fsync per write: the writer thread applies every write waiting in its queue, then fsyncs once and
 * acknowledges them all (the fsync is queued behind the writes already waiting, so a burst of commits shares
 * one). Reads must not see a write before it is durable, so they read a RocksDB snapshot taken after each fsync
 * ({@link ReadView}); the writer's own checks (versions, sequence keys) read the latest state. Without sync,
 * each write is acknowledged as soon as it is applied and reads see the latest state.
 *
 * <h2>Versions and sessions</h2>
 * Version ids count up across the store from 0, one per put, like Oxia's per shard. Every open starts a new
 * session (a persisted counter); ephemeral records carry its id. Closing the store deletes them (with
 * notifications); after a crash, the next open deletes them, since no other instance can hold the directory.
 *
 * <h2>Threads</h2>
 * Writes run one at a time on the writer thread ({@code lakestream-embedded-writer}), which makes them
 * linearizable; reads run concurrently on I/O threads ({@code lakestream-embedded-io-N}, a pool that grows
 * with demand) and see every write acknowledged before they started. Futures complete on the I/O threads, never
 * on the caller's thread nor on the writer thread, so slow work chained onto them delays no write. Listeners
 * run on one thread ({@code lakestream-embedded-notify}) in commit order.
 */
public final class EmbeddedMetadataStore implements MetadataStore {

    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedMetadataStore.class);

    private static final byte[] CF_RECORDS = "records".getBytes(StandardCharsets.UTF_8);
    private static final byte[] CF_EPHEMERAL = "ephemeral".getBytes(StandardCharsets.UTF_8);
    private static final byte[] META_LAST_VERSION_ID = "last-version-id".getBytes(StandardCharsets.UTF_8);
    private static final byte[] META_LAST_SESSION_ID = "last-session-id".getBytes(StandardCharsets.UTF_8);
    private static final byte RECORD_FORMAT = 1;
    private static final int HEADER = 1 + 5 * Long.BYTES;
    /** Like Oxia: up to this many keys a deleteRange deletes one by one, above it with a range tombstone. */
    private static final int DELETE_RANGE_THRESHOLD = 100;

    static {
        RocksDB.loadLibrary();
    }

    private final EmbeddedMetadataStoreConfig config;
    private final String address;
    private final DBOptions dbOptions;
    private final ColumnFamilyOptions cfOptions;
    private final RocksDB db;
    private final ColumnFamilyHandle metaCf;
    private final ColumnFamilyHandle recordsCf;
    private final ColumnFamilyHandle ephemeralCf;
    private final List<ColumnFamilyHandle> handles;
    private final WriteOptions writeOptions;
    private final long sessionId;

    private final ExecutorService writer;
    private final ThreadPoolExecutor ioPool;
    private final Executor io;
    private final MetadataListeners listeners;

    /** Readers hold the read lock while they touch RocksDB; close takes the write lock before freeing it. */
    private final ReentrantReadWriteLock dbLock = new ReentrantReadWriteLock();

    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile boolean dbClosed;
    /** Writer thread only. */
    private long lastVersionId;
    /** Writer thread only: set by the last task of close, after which writes fail. */
    private boolean writesStopped;
    /** Writer thread only: writes applied and waiting for the next WAL fsync to be acknowledged. */
    private final List<Applied<?>> unsynced = new ArrayList<>();
    /** What reads see when writes are synced: the state as of the last fsync; {@code null} without sync. */
    private volatile ReadView view;

    private final AtomicLong walSyncs = new AtomicLong();

    private EmbeddedMetadataStore(
            EmbeddedMetadataStoreConfig config,
            DBOptions dbOptions,
            ColumnFamilyOptions cfOptions,
            RocksDB db,
            List<ColumnFamilyHandle> handles,
            WriteOptions writeOptions,
            long lastVersionId,
            long sessionId) {
        this.config = config;
        this.address = config.address();
        this.dbOptions = dbOptions;
        this.cfOptions = cfOptions;
        this.db = db;
        this.handles = handles;
        this.metaCf = handles.get(0);
        this.recordsCf = handles.get(1);
        this.ephemeralCf = handles.get(2);
        this.writeOptions = writeOptions;
        this.lastVersionId = lastVersionId;
        this.sessionId = sessionId;
        this.writer = Executors.newSingleThreadExecutor(DaemonThreads.named("lakestream-embedded-writer"));
        this.ioPool = new ThreadPoolExecutor(
                0,
                Integer.MAX_VALUE,
                30,
                TimeUnit.SECONDS,
                new SynchronousQueue<>(),
                DaemonThreads.numbered("lakestream-embedded-io-"));
        this.io = task -> {
            try {
                ioPool.execute(task);
            } catch (RejectedExecutionException e) {
                task.run(); // only after close
            }
        };
        this.listeners = new MetadataListeners(address, "lakestream-embedded-notify", Duration.ofSeconds(30));
        this.view = config.sync() ? new ReadView(db, db.getSnapshot()) : null;
    }

    /**
     * Opens (creating if needed) the store in {@link EmbeddedMetadataStoreConfig#dataDir()}, starts a new session
     * and deletes the ephemeral records a crashed earlier instance left.
     *
     * @throws MetadataStoreException when the directory is locked by another open store or cannot be used
     */
    public static EmbeddedMetadataStore open(EmbeddedMetadataStoreConfig config) {
        String address = config.address();
        try {
            Files.createDirectories(config.dataDir());
        } catch (IOException e) {
            throw new MetadataStoreException(
                    address + ": cannot create the data directory " + config.dataDir() + " ("
                            + EmbeddedMetadataStoreConfig.DATA_DIR + "): " + e,
                    e);
        }
        DBOptions dbOptions = new DBOptions()
                .setCreateIfMissing(true)
                .setCreateMissingColumnFamilies(true)
                .setInfoLogLevel(InfoLogLevel.WARN_LEVEL)
                .setKeepLogFileNum(2);
        ColumnFamilyOptions cfOptions = new ColumnFamilyOptions();
        List<ColumnFamilyDescriptor> descriptors = List.of(
                new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, cfOptions),
                new ColumnFamilyDescriptor(CF_RECORDS, cfOptions),
                new ColumnFamilyDescriptor(CF_EPHEMERAL, cfOptions));
        List<ColumnFamilyHandle> handles = new ArrayList<>();
        RocksDB db;
        try {
            db = RocksDB.open(dbOptions, config.dataDir().toString(), descriptors, handles);
        } catch (RocksDBException e) {
            dbOptions.close();
            cfOptions.close();
            throw openFailure(config, e);
        }
        // Writes are fsynced in groups (see syncAndAcknowledge), never one by one.
        WriteOptions writeOptions = new WriteOptions().setSync(false);
        try {
            long lastVersionId = readLong(db, handles.get(0), META_LAST_VERSION_ID, -1);
            long sessionId = readLong(db, handles.get(0), META_LAST_SESSION_ID, 0) + 1;
            int removed;
            try (WriteBatch batch = new WriteBatch()) {
                batch.put(handles.get(0), META_LAST_SESSION_ID, longBytes(sessionId));
                removed = deleteAllEphemeral(db, handles.get(1), handles.get(2), batch, null);
                db.write(writeOptions, batch);
            }
            if (config.sync()) {
                db.flushWal(true);
            }
            if (removed > 0) {
                LOG.info("{}: removed {} ephemeral records of an earlier session that did not close", address, removed);
            }
            return new EmbeddedMetadataStore(
                    config, dbOptions, cfOptions, db, handles, writeOptions, lastVersionId, sessionId);
        } catch (RocksDBException | RuntimeException e) {
            writeOptions.close();
            handles.forEach(ColumnFamilyHandle::close);
            db.close();
            dbOptions.close();
            cfOptions.close();
            throw e instanceof MetadataStoreException m
                    ? m
                    : new MetadataStoreException(address + ": cannot open the store: " + e, e);
        }
    }

    private static MetadataStoreException openFailure(EmbeddedMetadataStoreConfig config, RocksDBException e) {
        String msg = String.valueOf(e.getMessage());
        Status status = e.getStatus();
        if (msg.toLowerCase(Locale.ROOT).contains("lock")
                && (status == null || status.getCode() == Status.Code.IOError)) {
            return new MetadataStoreException(
                    config.address() + ": the data directory " + config.dataDir()
                            + " is in use by another open EmbeddedMetadataStore (in this or another process): " + msg,
                    e);
        }
        return new MetadataStoreException(
                config.address() + ": cannot open RocksDB in " + config.dataDir() + ": " + msg, e);
    }

    public EmbeddedMetadataStoreConfig config() {
        return config;
    }

    @Override
    public String address() {
        return address;
    }

    /** The id of this instance's session, carried by the versions of its ephemeral records. */
    public long sessionId() {
        return sessionId;
    }

    /** How many times this instance has fsynced RocksDB's WAL to acknowledge writes (0 without sync). */
    public long walSyncs() {
        return walSyncs.get();
    }

    // ---------------------------------------------------------------- reads

    @Override
    public CompletableFuture<Optional<Record>> get(String key, GetOptions options) {
        try {
            checkOpen();
            MetadataKeys.checkGet(address, key, options);
        } catch (MetadataStoreException e) {
            return CompletableFuture.failedFuture(e);
        }
        return read("get", key, r -> Optional.ofNullable(find(r, KeyOrder.encode(key), options)));
    }

    private Record find(ReadOptions r, byte[] enc, GetOptions options) throws RocksDBException {
        switch (options.comparison()) {
            case EQUAL -> {
                byte[] v = db.get(recordsCf, r, enc);
                return v == null ? null : toRecord(enc, v, options.includeValue());
            }
            default -> {
                try (RocksIterator it = db.newIterator(recordsCf, r)) {
                    switch (options.comparison()) {
                        case FLOOR -> it.seekForPrev(enc);
                        case LOWER -> {
                            it.seekForPrev(enc);
                            if (it.isValid() && Arrays.equals(it.key(), enc)) {
                                it.prev();
                            }
                        }
                        case CEILING -> it.seek(enc);
                        case HIGHER -> {
                            it.seek(enc);
                            if (it.isValid() && Arrays.equals(it.key(), enc)) {
                                it.next();
                            }
                        }
                        default -> throw new IllegalStateException();
                    }
                    if (!it.isValid()) {
                        it.status();
                        return null;
                    }
                    return toRecord(it.key(), it.value(), options.includeValue());
                }
            }
        }
    }

    @Override
    public CompletableFuture<List<String>> list(
            String startInclusive, String endExclusive, Optional<String> partitionKey) {
        try {
            checkOpen();
            MetadataKeys.checkRange(address, startInclusive, endExclusive, partitionKey);
        } catch (MetadataStoreException e) {
            return CompletableFuture.failedFuture(e);
        }
        return read("list", startInclusive, r -> {
            List<String> keys = new ArrayList<>();
            scan(
                    r,
                    KeyOrder.encode(startInclusive),
                    KeyOrder.encode(endExclusive),
                    0,
                    it -> keys.add(KeyOrder.decode(it.key())));
            return keys;
        });
    }

    @Override
    public CompletableFuture<List<Record>> rangeScan(
            String startInclusive, String endExclusive, Optional<String> partitionKey, int limit) {
        try {
            checkOpen();
            MetadataKeys.checkRange(address, startInclusive, endExclusive, partitionKey);
        } catch (MetadataStoreException e) {
            return CompletableFuture.failedFuture(e);
        }
        return read("rangeScan", startInclusive, r -> {
            List<Record> records = new ArrayList<>();
            scan(
                    r,
                    KeyOrder.encode(startInclusive),
                    KeyOrder.encode(endExclusive),
                    limit,
                    it -> records.add(toRecord(it.key(), it.value(), true)));
            return records;
        });
    }

    /**
     * Calls {@code each} for the records in {@code [start, end)} (encoded) as {@code r} sees them, at most
     * {@code limit} if > 0.
     */
    private int scan(ReadOptions r, byte[] start, byte[] end, int limit, Consumer<RocksIterator> each)
            throws RocksDBException {
        int n = 0;
        if (Arrays.compareUnsigned(start, end) >= 0) {
            return 0;
        }
        try (RocksIterator it = db.newIterator(recordsCf, r)) {
            for (it.seek(start); it.isValid(); it.next()) {
                if (Arrays.compareUnsigned(it.key(), end) >= 0 || (limit > 0 && n >= limit)) {
                    break;
                }
                each.accept(it);
                n++;
            }
            it.status();
        }
        return n;
    }

    @FunctionalInterface
    private interface RocksCall<T> {
        T call(ReadOptions r) throws RocksDBException;
    }

    /** Reads of the latest state: the writer's own, and every read without sync. */
    private final ReadOptions latest = new ReadOptions();

    private <T> CompletableFuture<T> read(String op, String key, RocksCall<T> call) {
        CompletableFuture<T> f = new CompletableFuture<>();
        try {
            ioPool.execute(() -> {
                dbLock.readLock().lock();
                ReadView v = null;
                try {
                    if (dbClosed) {
                        throw new MetadataStoreUnavailableException(address + ": the store is closed");
                    }
                    v = acquireView();
                    f.complete(call.call(v == null ? latest : v.options));
                } catch (RocksDBException e) {
                    f.completeExceptionally(new MetadataStoreException(
                            address + ": " + op + " of key '" + key + "' failed: " + e.getMessage(), e));
                } catch (RuntimeException e) {
                    f.completeExceptionally(
                            e instanceof MetadataStoreException
                                    ? e
                                    : new MetadataStoreException(
                                            address + ": " + op + " of key '" + key + "' failed: " + e, e));
                } finally {
                    if (v != null) {
                        v.release();
                    }
                    dbLock.readLock().unlock();
                }
            });
        } catch (RejectedExecutionException e) {
            f.completeExceptionally(new MetadataStoreUnavailableException(address + ": the store is closed", e));
        }
        return f;
    }

    // ---------------------------------------------------------------- writes

    @Override
    public CompletableFuture<PutResult> put(String key, byte[] value, PutOptions options) {
        try {
            checkOpen();
            MetadataKeys.checkPut(address, key, value, options);
        } catch (MetadataStoreException e) {
            return CompletableFuture.failedFuture(e);
        }
        byte[] copy = value.clone();
        return write(
                options.isSequenceKeyPut() ? "sequence put" : "put", key, notes -> doPut(key, copy, options, notes));
    }

    private PutResult doPut(String key, byte[] value, PutOptions options, List<Notification> notes)
            throws RocksDBException {
        String finalKey = key;
        byte[] enc;
        byte[] existing = null;
        if (options.isSequenceKeyPut()) {
            String lastBelow = null;
            try (RocksIterator it = db.newIterator(recordsCf)) {
                byte[] search = KeyOrder.encode(MetadataKeys.sequenceSearchKey(key));
                it.seekForPrev(search);
                if (it.isValid() && Arrays.equals(it.key(), search)) {
                    it.prev();
                }
                if (it.isValid()) {
                    lastBelow = KeyOrder.decode(it.key());
                }
                it.status();
            }
            finalKey = MetadataKeys.nextSequenceKey(address, key, lastBelow, options.sequenceKeyDeltas());
            enc = KeyOrder.encode(finalKey);
            // Like Oxia, the assigned key is written as a new record.
        } else {
            enc = KeyOrder.encode(key);
            existing = db.get(recordsCf, enc);
            long expected = options.expectedVersionId();
            if (expected == PutOptions.ABSENT && existing != null) {
                throw new KeyAlreadyExistsException(
                        address + ": put of key '" + key + "' failed: the key already exists (version "
                                + header(existing).getLong(1) + ")");
            }
            if (expected >= 0 && (existing == null || header(existing).getLong(1) != expected)) {
                throw new UnexpectedVersionException(
                        address + ": put of key '" + key + "' failed: expected version " + expected + ", found "
                                + describe(existing),
                        key,
                        expected);
            }
        }
        long now = System.currentTimeMillis();
        long versionId = lastVersionId + 1;
        long modifications = 0;
        long created = now;
        if (existing != null) {
            ByteBuffer h = header(existing);
            modifications = h.getLong(1 + Long.BYTES) + 1;
            created = h.getLong(1 + 2 * Long.BYTES);
        }
        long session = options.ephemeral() ? sessionId : Version.NO_SESSION;
        Version version = new Version(versionId, modifications, created, now, session);
        try (WriteBatch batch = new WriteBatch()) {
            batch.put(recordsCf, enc, encodeRecord(version, value));
            if (options.ephemeral()) {
                batch.put(ephemeralCf, enc, longBytes(session));
            } else if (existing != null && header(existing).getLong(1 + 4 * Long.BYTES) != Version.NO_SESSION) {
                batch.delete(ephemeralCf, enc);
            }
            batch.put(metaCf, META_LAST_VERSION_ID, longBytes(versionId));
            db.write(writeOptions, batch);
        }
        lastVersionId = versionId;
        notes.add(
                modifications == 0
                        ? new Notification.KeyCreated(finalKey, versionId)
                        : new Notification.KeyModified(finalKey, versionId));
        return new PutResult(finalKey, version);
    }

    @Override
    public CompletableFuture<Boolean> delete(String key, DeleteOptions options) {
        try {
            checkOpen();
            MetadataKeys.checkDelete(address, key, options);
        } catch (MetadataStoreException e) {
            return CompletableFuture.failedFuture(e);
        }
        return write("delete", key, notes -> {
            byte[] enc = KeyOrder.encode(key);
            byte[] existing = db.get(recordsCf, enc);
            long expected = options.expectedVersionId();
            if (expected != PutOptions.ANY_VERSION) {
                boolean ok = expected == PutOptions.ABSENT
                        ? existing == null
                        : existing != null && header(existing).getLong(1) == expected;
                if (!ok) {
                    String expectation = expected == PutOptions.ABSENT ? "absent" : "version " + expected;
                    throw new UnexpectedVersionException(
                            address + ": delete of key '" + key + "' failed: expected " + expectation + ", found "
                                    + describe(existing),
                            key,
                            expected);
                }
            }
            if (existing == null) {
                return false;
            }
            try (WriteBatch batch = new WriteBatch()) {
                batch.delete(recordsCf, enc);
                batch.delete(ephemeralCf, enc);
                db.write(writeOptions, batch);
            }
            notes.add(new Notification.KeyDeleted(key));
            return true;
        });
    }

    @Override
    public CompletableFuture<Void> deleteRange(
            String startInclusive, String endExclusive, Optional<String> partitionKey) {
        try {
            checkOpen();
            MetadataKeys.checkRange(address, startInclusive, endExclusive, partitionKey);
        } catch (MetadataStoreException e) {
            return CompletableFuture.failedFuture(e);
        }
        return write("deleteRange", startInclusive, notes -> {
            byte[] start = KeyOrder.encode(startInclusive);
            byte[] end = KeyOrder.encode(endExclusive);
            List<byte[]> keys = new ArrayList<>();
            int n = scan(latest, start, end, 0, it -> {
                if (keys.size() <= DELETE_RANGE_THRESHOLD) {
                    keys.add(it.key());
                }
            });
            if (n > 0) {
                try (WriteBatch batch = new WriteBatch()) {
                    if (n > DELETE_RANGE_THRESHOLD) {
                        batch.deleteRange(recordsCf, start, end);
                        batch.deleteRange(ephemeralCf, start, end);
                    } else {
                        for (byte[] k : keys) {
                            batch.delete(recordsCf, k);
                            batch.delete(ephemeralCf, k);
                        }
                    }
                    db.write(writeOptions, batch);
                }
            }
            // Like Oxia: reported whether or not the range held keys.
            notes.add(new Notification.KeyRangeDeleted(startInclusive, endExclusive));
            return null;
        });
    }

    @FunctionalInterface
    private interface WriteCall<T> {
        T call(List<Notification> notifications) throws RocksDBException;
    }

    /** The current view, held for one read; {@code null} without sync. */
    private ReadView acquireView() {
        while (true) {
            ReadView v = view;
            if (v == null || v.acquire()) {
                return v;
            }
        }
    }

    /**
     * Runs {@code call} on the writer thread; once it is durable, publishes its notifications and completes on an
     * I/O thread.
     */
    private <T> CompletableFuture<T> write(String op, String key, WriteCall<T> call) {
        CompletableFuture<T> f = new CompletableFuture<>();
        try {
            writer.execute(() -> {
                T result;
                List<Notification> notes = new ArrayList<>(1);
                try {
                    if (writesStopped) {
                        throw new MetadataStoreUnavailableException(address + ": the store is closed");
                    }
                    result = call.call(notes);
                } catch (RocksDBException e) {
                    fail(
                            f,
                            new MetadataStoreException(
                                    address + ": " + op + " of key '" + key + "' failed: " + e.getMessage(), e));
                    return;
                } catch (RuntimeException e) {
                    fail(
                            f,
                            e instanceof MetadataStoreException
                                    ? e
                                    : new MetadataStoreException(
                                            address + ": " + op + " of key '" + key + "' failed: " + e, e));
                    return;
                }
                Applied<T> applied = new Applied<>(f, result, notes, op, key);
                if (!config.sync()) {
                    applied.acknowledge();
                    return;
                }
                unsynced.add(applied);
                if (unsynced.size() == 1) {
                    // Behind every write already queued: they join this fsync.
                    writer.execute(this::syncAndAcknowledge);
                }
            });
        } catch (RejectedExecutionException e) {
            f.completeExceptionally(new MetadataStoreUnavailableException(address + ": the store is closed", e));
        }
        return f;
    }

    /**
     * The group commit: one fsync of RocksDB's WAL for every write applied since the last, then a new view for
     * reads, then the writes' notifications and acknowledgements in commit order. Writer thread only.
     */
    private void syncAndAcknowledge() {
        List<Applied<?>> group = new ArrayList<>(unsynced);
        unsynced.clear();
        try {
            db.flushWal(true);
            walSyncs.incrementAndGet();
        } catch (RocksDBException | RuntimeException e) {
            LOG.error(
                    "{}: fsync of the WAL failed; {} writes are failed, though they may have been stored",
                    address,
                    group.size(),
                    e);
            group.forEach(a -> a.failSync(e));
            return;
        }
        ReadView old = view;
        view = new ReadView(db, db.getSnapshot());
        old.release();
        group.forEach(Applied::acknowledge);
    }

    /** A write applied to RocksDB, to be acknowledged once durable. */
    private final class Applied<T> {
        private final CompletableFuture<T> future;
        private final T result;
        private final List<Notification> notes;
        private final String op;
        private final String key;

        Applied(CompletableFuture<T> future, T result, List<Notification> notes, String op, String key) {
            this.future = future;
            this.result = result;
            this.notes = notes;
            this.op = op;
            this.key = key;
        }

        void acknowledge() {
            publish(notes);
            io.execute(() -> future.complete(result));
        }

        void failSync(Throwable e) {
            fail(
                    future,
                    new MetadataStoreException(
                            address + ": " + op + " of key '" + key
                                    + "' failed: the WAL could not be fsynced (the write may or may not survive a crash): "
                                    + e,
                            e));
        }
    }

    /**
     * A RocksDB snapshot taken right after a WAL fsync: what reads see, so that they never see a write before
     * it is durable. Counted: the store holds one reference until the next view replaces it, each read one
     * while it runs; the snapshot is released when the count reaches zero.
     */
    private static final class ReadView {
        private final RocksDB db;
        private final Snapshot snapshot;
        final ReadOptions options;
        private final AtomicInteger users = new AtomicInteger(1);

        ReadView(RocksDB db, Snapshot snapshot) {
            this.db = db;
            this.snapshot = snapshot;
            this.options = new ReadOptions().setSnapshot(snapshot);
        }

        /** Takes a reference; false if the view is already released (the caller reads the newer one). */
        boolean acquire() {
            while (true) {
                int n = users.get();
                if (n == 0) {
                    return false;
                }
                if (users.compareAndSet(n, n + 1)) {
                    return true;
                }
            }
        }

        void release() {
            if (users.decrementAndGet() == 0) {
                options.close();
                db.releaseSnapshot(snapshot);
            }
        }
    }

    /** For tests: runs {@code task} on the writer thread, between writes (to hold writes back, say). */
    void onWriterThread(Runnable task) {
        writer.execute(task);
    }

    private void fail(CompletableFuture<?> f, Throwable e) {
        io.execute(() -> f.completeExceptionally(e));
    }

    // ---------------------------------------------------------------- notifications

    @Override
    public AutoCloseable addListener(Consumer<Notification> listener) {
        checkOpen();
        return listeners.add(listener);
    }

    private void publish(List<Notification> notes) {
        listeners.publish(notes);
    }

    // ---------------------------------------------------------------- close

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        // Last write: remove this session's ephemeral records, then refuse further writes.
        CompletableFuture<Void> ended = new CompletableFuture<>();
        try {
            writer.execute(() -> {
                try {
                    List<Notification> notes = new ArrayList<>();
                    try (WriteBatch batch = new WriteBatch()) {
                        deleteAllEphemeral(db, recordsCf, ephemeralCf, batch, notes);
                        if (batch.count() > 0) {
                            db.write(writeOptions, batch);
                            if (config.sync()) {
                                db.flushWal(true);
                            }
                        }
                    }
                    publish(notes);
                } catch (RocksDBException | RuntimeException e) {
                    LOG.warn(
                            "{}: could not delete the session's ephemeral records on close; the next open will",
                            address,
                            e);
                } finally {
                    writesStopped = true;
                    ended.complete(null);
                }
            });
            ended.join();
        } catch (RejectedExecutionException e) {
            // cannot happen: only close shuts the writer down
        }
        writer.shutdown();
        awaitQuietly(writer);
        listeners.close();
        dbLock.writeLock().lock();
        try {
            dbClosed = true;
            if (view != null) {
                view.release();
                view = null;
            }
            latest.close();
            writeOptions.close();
            handles.forEach(ColumnFamilyHandle::close);
            db.close();
            dbOptions.close();
            cfOptions.close();
        } finally {
            dbLock.writeLock().unlock();
        }
        ioPool.shutdown();
    }

    @Override
    public String toString() {
        return "EmbeddedMetadataStore[" + address + "]";
    }

    // ---------------------------------------------------------------- helpers

    private void checkOpen() {
        if (closed.get()) {
            throw new MetadataStoreUnavailableException(address + ": the store is closed");
        }
    }

    /** Adds deletes of every ephemeral record to {@code batch}; returns how many. */
    private static int deleteAllEphemeral(
            RocksDB db,
            ColumnFamilyHandle records,
            ColumnFamilyHandle ephemeral,
            WriteBatch batch,
            List<Notification> notes)
            throws RocksDBException {
        int n = 0;
        try (RocksIterator it = db.newIterator(ephemeral)) {
            for (it.seekToFirst(); it.isValid(); it.next()) {
                byte[] k = it.key();
                batch.delete(records, k);
                batch.delete(ephemeral, k);
                if (notes != null) {
                    notes.add(new Notification.KeyDeleted(KeyOrder.decode(k)));
                }
                n++;
            }
            it.status();
        }
        return n;
    }

    private static byte[] encodeRecord(Version v, byte[] value) {
        ByteBuffer b = ByteBuffer.allocate(HEADER + value.length);
        b.put(RECORD_FORMAT)
                .putLong(v.versionId())
                .putLong(v.modificationsCount())
                .putLong(v.createdTimestamp())
                .putLong(v.modifiedTimestamp())
                .putLong(v.sessionId())
                .put(value);
        return b.array();
    }

    private static ByteBuffer header(byte[] stored) {
        if (stored.length < HEADER || stored[0] != RECORD_FORMAT) {
            throw new IllegalStateException("Unknown record format " + (stored.length == 0 ? "(empty)" : stored[0]));
        }
        return ByteBuffer.wrap(stored);
    }

    private static Record toRecord(byte[] encodedKey, byte[] stored, boolean includeValue) {
        ByteBuffer h = header(stored);
        Version v = new Version(
                h.getLong(1),
                h.getLong(1 + Long.BYTES),
                h.getLong(1 + 2 * Long.BYTES),
                h.getLong(1 + 3 * Long.BYTES),
                h.getLong(1 + 4 * Long.BYTES));
        byte[] value = includeValue ? Arrays.copyOfRange(stored, HEADER, stored.length) : new byte[0];
        return new Record(KeyOrder.decode(encodedKey), value, v);
    }

    private static String describe(byte[] existing) {
        return existing == null ? "no record" : "version " + header(existing).getLong(1);
    }

    private static long readLong(RocksDB db, ColumnFamilyHandle cf, byte[] key, long dflt) throws RocksDBException {
        byte[] v = db.get(cf, key);
        return v == null ? dflt : ByteBuffer.wrap(v).getLong();
    }

    private static byte[] longBytes(long v) {
        return ByteBuffer.allocate(Long.BYTES).putLong(v).array();
    }

    private static void awaitQuietly(ExecutorService e) {
        try {
            if (!e.awaitTermination(30, TimeUnit.SECONDS)) {
                LOG.warn("{} did not stop within 30 s", e);
            }
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
        }
    }
}
