package dev.lakestream.pulsar;

import dev.lakestream.core.Lakestream;
import dev.lakestream.core.StreamLog;
import dev.lakestream.core.catalog.CatalogException;
import dev.lakestream.core.catalog.StreamInfo;
import dev.lakestream.core.concurrent.DaemonThreads;
import dev.lakestream.core.log.LogEntry;
import dev.lakestream.pulsar.common.BrokerNode;
import dev.lakestream.pulsar.common.Callbacks;
import dev.lakestream.pulsar.common.Errors;
import dev.lakestream.pulsar.common.ManagedLedgerRecord;
import dev.lakestream.pulsar.common.Sync;
import dev.lakestream.pulsar.common.VirtualLedgers;
import dev.lakestream.pulsar.ledger.LakestreamManagedLedger;
import dev.lakestream.pulsar.ledger.LedgerServices;
import dev.lakestream.pulsar.ledger.LedgerSizes;
import dev.lakestream.pulsar.metrics.LakestreamManagedLedgerFactoryMXBean;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Supplier;
import org.apache.bookkeeper.mledger.AsyncCallbacks.DeleteLedgerCallback;
import org.apache.bookkeeper.mledger.AsyncCallbacks.ManagedLedgerInfoCallback;
import org.apache.bookkeeper.mledger.AsyncCallbacks.OpenLedgerCallback;
import org.apache.bookkeeper.mledger.AsyncCallbacks.OpenReadOnlyCursorCallback;
import org.apache.bookkeeper.mledger.AsyncCallbacks.OpenReadOnlyManagedLedgerCallback;
import org.apache.bookkeeper.mledger.Entry;
import org.apache.bookkeeper.mledger.ManagedLedger;
import org.apache.bookkeeper.mledger.ManagedLedgerConfig;
import org.apache.bookkeeper.mledger.ManagedLedgerException;
import org.apache.bookkeeper.mledger.ManagedLedgerFactory;
import org.apache.bookkeeper.mledger.ManagedLedgerFactoryConfig;
import org.apache.bookkeeper.mledger.ManagedLedgerFactoryMXBean;
import org.apache.bookkeeper.mledger.ManagedLedgerInfo;
import org.apache.bookkeeper.mledger.Position;
import org.apache.bookkeeper.mledger.ReadOnlyCursor;
import org.apache.bookkeeper.mledger.impl.cache.EntryCacheManager;
import org.apache.bookkeeper.mledger.intercept.ManagedLedgerInterceptor;
import org.apache.pulsar.common.naming.TopicName;
import org.apache.pulsar.common.policies.data.PersistentOfflineTopicStats;
import org.apache.pulsar.metadata.api.MetadataStoreException;
import org.apache.pulsar.metadata.api.extended.MetadataStoreExtended;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves managed ledgers from Lakestream streams: one stream per managed ledger (catalog namespace
 * {@value #NAMESPACE}, name = the managed ledger's name). The broker's {@code /managed-ledgers/<name>} nodes are kept
 * in {@code brokerMetadataStore} so the broker's topic listing and existence checks work.
 */
public final class LakestreamManagedLedgerFactory implements ManagedLedgerFactory {

    private static final Logger LOG = LoggerFactory.getLogger(LakestreamManagedLedgerFactory.class);
    public static final String NAMESPACE = "managed-ledgers";
    static final String BROKER_PREFIX = "/managed-ledgers/";

    private final Lakestream log;
    private final MetadataStoreExtended brokerStore;
    private final ManagedLedgerFactoryConfig config;
    private final ExecutorService pool;
    private final ScheduledExecutorService scheduler;
    /** What every ledger of this factory uses of it: handed to the ledgers instead of the factory itself. */
    private final LedgerServices services;

    private final Map<String, CompletableFuture<LakestreamManagedLedger>> ledgers = new ConcurrentHashMap<>();
    private final NoopEntryCacheManager cacheManager;
    private volatile long cacheEvictionTimeThresholdNanos;
    private volatile boolean closed;
    private volatile InitialHolds initialHolds = InitialHolds.NONE;

    /** A factory serving managed ledgers from {@code log}; {@code brokerMetadataStore} holds the /managed-ledgers nodes. The caller owns and closes {@code log}. */
    public LakestreamManagedLedgerFactory(
            Lakestream log, MetadataStoreExtended brokerMetadataStore, ManagedLedgerFactoryConfig config) {
        this.log = log;
        this.brokerStore = brokerMetadataStore;
        this.config = config == null ? new ManagedLedgerFactoryConfig() : config;
        this.pool = Executors.newFixedThreadPool(
                Math.max(2, Runtime.getRuntime().availableProcessors()), DaemonThreads.numbered("lakestream-ml-"));
        this.scheduler = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("lakestream-ml-scheduler"));
        this.cacheManager = new NoopEntryCacheManager(this.config.getMaxCacheSize());
        this.services =
                new LedgerServices(log.metadataStore(), root(), pool, scheduler, this::evict, this::deleteStorage);
    }

    private String root() {
        return log.config().metadataRoot();
    }

    /**
     * Sets who holds a new managed ledger's stream from its first entry on (the broker plugin's materializer);
     * {@link InitialHolds#NONE} to stop. Ledgers opened before keep what they have.
     */
    public void setInitialHolds(InitialHolds holds) {
        this.initialHolds = Objects.requireNonNull(holds, "holds");
    }

    static String brokerPath(String name) {
        return BROKER_PREFIX + name;
    }

    // ------------------------------------------------------------------ open

    @Override
    public ManagedLedger open(String name) throws InterruptedException, ManagedLedgerException {
        return open(name, new ManagedLedgerConfig());
    }

    @Override
    public ManagedLedger open(String name, ManagedLedgerConfig config)
            throws InterruptedException, ManagedLedgerException {
        return Sync.await(openAsync(name, config));
    }

    @Override
    public void asyncOpen(String name, OpenLedgerCallback cb, Object ctx) {
        asyncOpen(name, new ManagedLedgerConfig(), cb, null, ctx);
    }

    @Override
    public void asyncOpen(
            String name,
            ManagedLedgerConfig config,
            OpenLedgerCallback cb,
            Supplier<CompletableFuture<Boolean>> mlOwnershipChecker,
            Object ctx) {
        Callbacks.deliver(
                openAsync(name, config), pool, ml -> cb.openLedgerComplete(ml, ctx), e -> cb.openLedgerFailed(e, ctx));
    }

    CompletableFuture<LakestreamManagedLedger> openAsync(String name, ManagedLedgerConfig cfg) {
        if (closed) {
            return CompletableFuture.failedFuture(new ManagedLedgerException.ManagedLedgerFactoryClosedException());
        }
        ManagedLedgerConfig config = cfg == null ? new ManagedLedgerConfig() : cfg;
        while (true) {
            CompletableFuture<LakestreamManagedLedger> existing = ledgers.get(name);
            if (existing != null) {
                LakestreamManagedLedger old =
                        existing.isDone() && !existing.isCompletedExceptionally() ? existing.join() : null;
                if (old != null && old.isClosedOrDeleted()) {
                    // Being closed (Pulsar closes a topic after a failed write and opens it again at once): the
                    // new instance must start after the old one's last append has landed or failed.
                    return old.closeAsync()
                            .handle((v, e) -> {
                                evict(name, old);
                                return null;
                            })
                            .thenCompose(v -> openAsync(name, cfg));
                }
                return existing;
            }
            CompletableFuture<LakestreamManagedLedger> f = new CompletableFuture<>();
            if (ledgers.putIfAbsent(name, f) != null) {
                continue;
            }
            // the callback completes f either way.
            var unused = openInternal(name, config).whenComplete((ml, e) -> {
                if (e != null) {
                    ledgers.remove(name, f);
                    f.completeExceptionally(Errors.unwrap(e));
                } else {
                    f.complete(ml);
                }
            });
            return f;
        }
    }

    private CompletableFuture<StreamInfo> lookupOrCreate(String name, ManagedLedgerConfig config) {
        return log.catalog().lookup(NAMESPACE, name).thenCompose(info -> {
            if (info.isPresent() && !info.get().deleted()) {
                return CompletableFuture.completedFuture(info.get());
            }
            return brokerStore.get(brokerPath(name)).thenCompose(node -> {
                boolean nodeExists = node.isPresent();
                if (node.isPresent() && createdElsewhere(node.get().getValue())) {
                    return CompletableFuture.failedFuture(createdElsewhereError(name));
                }
                if (!config.isCreateIfMissing() && !nodeExists) {
                    return CompletableFuture.failedFuture(new ManagedLedgerException.ManagedLedgerNotFoundException(
                            "managed ledger " + name + " does not exist"));
                }
                return log.catalog().create(NAMESPACE, name, Map.of()).exceptionallyCompose(e -> {
                    Throwable c = Errors.unwrap(e);
                    if (c instanceof CatalogException ce && ce.reason() == CatalogException.Reason.ALREADY_EXISTS) {
                        return log.catalog().open(NAMESPACE, name);
                    }
                    return CompletableFuture.failedFuture(c);
                });
            });
        });
    }

    private CompletableFuture<LakestreamManagedLedger> openInternal(String name, ManagedLedgerConfig config) {
        return lookupOrCreate(name, config).thenCompose(info -> {
            StreamLog stream = log.stream(info);
            return stream.fence()
                    .thenCompose(epoch -> loadLedger(name, info, stream, config, false))
                    .thenCompose(ml -> ensureBrokerNode(name, info.id()).thenApply(v -> ml))
                    .thenCompose(ml -> ml.initializeForWriting().thenApply(v -> ml))
                    .thenCompose(ml -> ml.recoverCursors().thenApply(v -> ml))
                    .thenCompose(ml -> initializeInterceptor(ml, config).thenApply(v -> ml))
                    .whenComplete((ml, e) -> {
                        if (e != null) {
                            stream.releaseFence();
                            LOG.warn("opening managed ledger {} failed", name, e);
                        } else {
                            LOG.info(
                                    "opened managed ledger {} on stream {}, last confirmed {}",
                                    name,
                                    info.id(),
                                    ml.getLastConfirmedEntry());
                        }
                    });
        });
    }

    /** Builds the in-memory ledger from the stored record and the stream's offsets (reconciling the two). */
    private CompletableFuture<LakestreamManagedLedger> loadLedger(
            String name, StreamInfo info, StreamLog stream, ManagedLedgerConfig config, boolean readOnly) {
        return ManagedLedgerRecord.load(log.metadataStore(), root(), info.id())
                .thenCompose(rec -> rec.isPresent() || readOnly
                        ? CompletableFuture.completedFuture(rec)
                        : placeInitialHolds(name, info.id(), config).thenApply(v -> rec))
                .thenCompose(rec -> stream.endOffset()
                        .thenCombine(stream.startOffset(), (end, start) -> new long[] {end, start})
                        .thenCompose(r -> {
                            long end = r[0];
                            long start = r[1];
                            ManagedLedgerRecord record = rec.orElseGet(() -> {
                                ManagedLedgerRecord m = new ManagedLedgerRecord();
                                m.name = name;
                                m.streamId = info.id();
                                m.createdAt = System.currentTimeMillis();
                                if (config.getProperties() != null) {
                                    m.properties.putAll(config.getProperties());
                                }
                                return m;
                            });
                            List<VirtualLedgers.Ledger> ls = new ArrayList<>();
                            for (VirtualLedgers.Ledger l : record.toLedgers()) {
                                if (l.firstOffset() <= end) {
                                    ls.add(l);
                                }
                            }
                            if (ls.isEmpty() && end > start) {
                                // Data without ledgers (a stream written by another program): one covering ledger.
                                ls.add(new VirtualLedgers.Ledger(0, start, 0, 0));
                            }
                            return LedgerSizes.measured(stream, ls, start, end).thenApply(v -> {
                                v.removeBelow(start);
                                return new LakestreamManagedLedger(
                                        services, name, stream, config, record, v, Math.min(start, end), readOnly);
                            });
                        }));
    }

    /**
     * At a ledger's first open (no record stored yet, so no entry either; also after a crash between the stream's
     * creation and its first record): the initial holds at offset 0, before {@code initializeForWriting} lets entries
     * in. A hold that is there already (an earlier attempt) is set again at 0, which is where it was.
     */
    private CompletableFuture<Void> placeInitialHolds(String name, long streamId, ManagedLedgerConfig config) {
        Map<String, String> properties = config.getProperties() == null ? Map.of() : config.getProperties();
        return initialHolds.holders(name, properties).thenCompose(holders -> {
            List<CompletableFuture<Void>> holds = new ArrayList<>();
            for (String holder : holders) {
                holds.add(log.retentionHolds().hold(streamId, holder, 0));
            }
            return CompletableFuture.allOf(holds.toArray(CompletableFuture[]::new));
        });
    }

    // ---- Storage binding (hybrid mode): a managed ledger stays in the storage that created it. The broker node of a
    // Lakestream ledger holds {"storage":"lakestream",...}; BookKeeper's factory keeps its ManagedLedgerInfo
    // (protobuf) in the same node; a zero-byte node is the broker's placeholder for a topic no storage opened yet.

    /** Whether a broker node's value is another storage's ledger (BookKeeper's ManagedLedgerInfo), not ours. */
    static boolean createdElsewhere(byte[] node) {
        return BrokerNode.isOtherStorage(node);
    }

    private static ManagedLedgerException createdElsewhereError(String name) {
        return new ManagedLedgerException("Managed ledger " + name + " was created in another storage (its "
                + brokerPath(name) + " node holds that storage's ledger metadata, e.g. BookKeeper's ManagedLedgerInfo,"
                + " not Lakestream's); refusing to open it on Lakestream, where it would reopen empty and hide its"
                + " data. Its storage-class policy was changed after it held data: set the namespace's or topic's"
                + " storage class back, or delete the topic first");
    }

    private CompletableFuture<Void> ensureBrokerNode(String name, long streamId) {
        String path = brokerPath(name);
        byte[] value = BrokerNode.encode(streamId);
        return brokerStore.get(path).thenCompose(node -> {
            if (node.isPresent() && node.get().getValue().length > 0) {
                return CompletableFuture.completedFuture(null);
            }
            // Absent, or a zero-byte placeholder: write (stamp) it, so that the node says which storage holds the data.
            long expected = node.map(r -> r.getStat().getVersion()).orElse(-1L);
            return brokerStore.put(path, value, Optional.of(expected)).handle((s, e) -> {
                if (e != null && !(Errors.unwrap(e) instanceof MetadataStoreException.BadVersionException)) {
                    throw new java.util.concurrent.CompletionException(Errors.unwrap(e));
                }
                return null;
            });
        });
    }

    private CompletableFuture<Void> initializeInterceptor(LakestreamManagedLedger ml, ManagedLedgerConfig config) {
        ManagedLedgerInterceptor interceptor = config.getManagedLedgerInterceptor();
        if (interceptor == null) {
            return CompletableFuture.completedFuture(null);
        }
        interceptor.onManagedLedgerPropertiesInitialize(new HashMap<>(ml.getProperties()));
        return interceptor.onManagedLedgerLastLedgerInitialize(ml.getName(), () -> {
            long lce = ml.lceOffset();
            if (lce < ml.startOffset()) {
                return CompletableFuture.completedFuture(Optional.<Entry>empty());
            }
            return ml.readOne(lce).thenApply(Optional::of);
        });
    }

    @SuppressWarnings("ReferenceEquality") // evicts only this very instance, never a newer one opened since
    private void evict(String name, LakestreamManagedLedger ml) {
        CompletableFuture<LakestreamManagedLedger> f = ledgers.get(name);
        if (f != null && f.isDone() && !f.isCompletedExceptionally() && f.join() == ml) {
            ledgers.remove(name, f);
        }
    }

    // ------------------------------------------------------------------ read-only

    private CompletableFuture<LakestreamManagedLedger> openReadOnly(String name, ManagedLedgerConfig config) {
        return log.catalog().lookup(NAMESPACE, name).thenCompose(info -> {
            if (info.isEmpty() || info.get().deleted()) {
                return CompletableFuture.failedFuture(new ManagedLedgerException.ManagedLedgerNotFoundException(
                        "managed ledger " + name + " does not exist"));
            }
            return loadLedger(
                    name,
                    info.get(),
                    log.stream(info.get()),
                    config == null ? new ManagedLedgerConfig() : config,
                    true);
        });
    }

    @Override
    public ReadOnlyCursor openReadOnlyCursor(String name, Position startPosition, ManagedLedgerConfig config)
            throws InterruptedException, ManagedLedgerException {
        return Sync.await(
                openReadOnly(name, config).thenApply(ml -> LakestreamReadOnlyManagedLedger.cursor(ml, startPosition)));
    }

    @Override
    public void asyncOpenReadOnlyCursor(
            String name,
            Position startPosition,
            ManagedLedgerConfig config,
            OpenReadOnlyCursorCallback cb,
            Object ctx) {
        Callbacks.deliver(
                openReadOnly(name, config).thenApply(ml -> LakestreamReadOnlyManagedLedger.cursor(ml, startPosition)),
                pool,
                c -> cb.openReadOnlyCursorComplete(c, ctx),
                e -> cb.openReadOnlyCursorFailed(e, ctx));
    }

    @Override
    public void asyncOpenReadOnlyManagedLedger(
            String name, OpenReadOnlyManagedLedgerCallback cb, ManagedLedgerConfig config, Object ctx) {
        Callbacks.deliver(
                openReadOnly(name, config),
                pool,
                ml -> cb.openReadOnlyManagedLedgerComplete(new LakestreamReadOnlyManagedLedger(ml), ctx),
                e -> cb.openReadOnlyManagedLedgerFailed(e, ctx));
    }

    // ------------------------------------------------------------------ info

    @Override
    public ManagedLedgerInfo getManagedLedgerInfo(String name) throws InterruptedException, ManagedLedgerException {
        return Sync.await(infoAsync(name));
    }

    @Override
    public void asyncGetManagedLedgerInfo(String name, ManagedLedgerInfoCallback cb, Object ctx) {
        Callbacks.deliver(infoAsync(name), pool, info -> cb.getInfoComplete(info, ctx), e -> cb.getInfoFailed(e, ctx));
    }

    private CompletableFuture<LakestreamManagedLedger> openOrReadOnly(String name) {
        CompletableFuture<LakestreamManagedLedger> open = ledgers.get(name);
        if (open != null && open.isDone() && !open.isCompletedExceptionally()) {
            return open;
        }
        return openReadOnly(name, null);
    }

    private CompletableFuture<ManagedLedgerInfo> infoAsync(String name) {
        return openOrReadOnly(name).thenCompose(ml -> {
            ManagedLedgerInfo info = new ManagedLedgerInfo();
            ManagedLedgerRecord rec = ml.recordSnapshot();
            info.version = rec.storeVersion;
            info.creationDate = java.time.Instant.ofEpochMilli(rec.createdAt).toString();
            info.modificationDate = info.creationDate;
            info.ledgers = new ArrayList<>();
            List<VirtualLedgers.Ledger> ls = ml.ledgerList();
            for (int i = 0; i < ls.size(); i++) {
                ManagedLedgerInfo.LedgerInfo li = new ManagedLedgerInfo.LedgerInfo();
                li.ledgerId = ls.get(i).id();
                li.entries = ml.ledgerEntries(i);
                li.size = ml.ledgerSize(i);
                li.timestamp = ls.get(i).timestamp();
                info.ledgers.add(li);
            }
            if (rec.terminatedOffset != null) {
                Position p = ml.positionOf(rec.terminatedOffset);
                ManagedLedgerInfo.PositionInfo pi = new ManagedLedgerInfo.PositionInfo();
                pi.ledgerId = p.getLedgerId();
                pi.entryId = p.getEntryId();
                info.terminatedPosition = pi;
            }
            info.properties = new LinkedHashMap<>(rec.properties);
            info.cursors = new LinkedHashMap<>();
            return ml.stream().cursorNames().thenCompose(names -> {
                List<CompletableFuture<Void>> all = new ArrayList<>();
                for (String n : names) {
                    all.add(ml.stream().openCursor(n, 0).thenAccept(dc -> {
                        ManagedLedgerInfo.CursorInfo ci = new ManagedLedgerInfo.CursorInfo();
                        ci.cursorsLedgerId = -1;
                        Position md = ml.positionOf(dc.ackedBefore() - 1);
                        ci.markDelete = new ManagedLedgerInfo.PositionInfo();
                        ci.markDelete.ledgerId = md.getLedgerId();
                        ci.markDelete.entryId = md.getEntryId();
                        ci.individualDeletedMessages = new ArrayList<>();
                        for (long[] r : dc.state().individuallyAcked().toList()) {
                            ManagedLedgerInfo.MessageRangeInfo mr = new ManagedLedgerInfo.MessageRangeInfo();
                            Position from = ml.positionOf(r[0] - 1);
                            Position to = ml.positionOf(r[1] - 1);
                            mr.from.ledgerId = from.getLedgerId();
                            mr.from.entryId = from.getEntryId();
                            mr.to.ledgerId = to.getLedgerId();
                            mr.to.entryId = to.getEntryId();
                            ci.individualDeletedMessages.add(mr);
                        }
                        ci.properties = new LinkedHashMap<>(dc.positionProperties());
                        synchronized (info) {
                            info.cursors.put(n, ci);
                        }
                    }));
                }
                return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new))
                        .thenApply(v -> info);
            });
        });
    }

    @Override
    public CompletableFuture<Map<String, String>> getManagedLedgerPropertiesAsync(String name) {
        // The broker asks before it creates a topic: a ledger that does not exist yet has no properties (as in Pulsar).
        return openOrReadOnly(name)
                .thenApply(ml -> (Map<String, String>) new LinkedHashMap<>(ml.getProperties()))
                .exceptionallyCompose(e -> {
                    ManagedLedgerException ml = Errors.toMl(e);
                    return ml instanceof ManagedLedgerException.ManagedLedgerNotFoundException
                            ? CompletableFuture.completedFuture(Map.of())
                            : CompletableFuture.failedFuture(ml);
                });
    }

    @Override
    public CompletableFuture<Boolean> asyncExists(String name) {
        return brokerStore
                .exists(brokerPath(name))
                .thenCompose(exists -> exists
                        ? CompletableFuture.completedFuture(true)
                        : log.catalog()
                                .lookup(NAMESPACE, name)
                                .thenApply(i -> i.isPresent() && !i.get().deleted()));
    }

    // ------------------------------------------------------------------ delete

    @Override
    public void delete(String name) throws InterruptedException, ManagedLedgerException {
        Sync.await(deleteAsync(name));
    }

    @Override
    public void delete(String name, CompletableFuture<ManagedLedgerConfig> mlConfigFuture)
            throws InterruptedException, ManagedLedgerException {
        delete(name);
    }

    @Override
    public void asyncDelete(String name, DeleteLedgerCallback cb, Object ctx) {
        Callbacks.deliver(
                deleteAsync(name), pool, v -> cb.deleteLedgerComplete(ctx), e -> cb.deleteLedgerFailed(e, ctx));
    }

    @Override
    public void asyncDelete(
            String name, CompletableFuture<ManagedLedgerConfig> mlConfigFuture, DeleteLedgerCallback cb, Object ctx) {
        asyncDelete(name, cb, ctx);
    }

    private CompletableFuture<Void> deleteAsync(String name) {
        CompletableFuture<LakestreamManagedLedger> open = ledgers.get(name);
        if (open != null) {
            return open.handle((ml, e) -> ml).thenCompose(ml -> ml != null ? ml.deleteAsync() : deleteClosed(name));
        }
        return deleteClosed(name);
    }

    private CompletableFuture<Void> deleteClosed(String name) {
        return log.catalog().lookup(NAMESPACE, name).thenCompose(info -> {
            if (info.isPresent() && !info.get().deleted()) {
                return deleteStorage(name, info.get().id());
            }
            return brokerStore.exists(brokerPath(name)).thenCompose(exists -> {
                if (!exists) {
                    // The exception Pulsar's factory gives: the broker takes it for "nothing to delete" when it
                    // deletes a topic's pending-ack ledgers.
                    return CompletableFuture.failedFuture(new ManagedLedgerException.MetadataNotFoundException(
                            "managed ledger " + name + " does not exist"));
                }
                return deleteBrokerNode(name);
            });
        });
    }

    /** Deletes a managed ledger's data and metadata, and evicts it from the cache (before any callback runs). */
    private CompletableFuture<Void> deleteStorage(String name, long streamId) {
        StreamLog stream = log.stream(streamId);
        return stream.deleteData()
                .thenCompose(v -> log.catalog().delete(NAMESPACE, name).handle((x, e) -> null))
                .thenCompose(v -> log.metadataStore().delete(ManagedLedgerRecord.key(root(), streamId)))
                .thenCompose(v -> deleteBrokerNode(name))
                .whenComplete((v, e) -> {
                    CompletableFuture<LakestreamManagedLedger> f = ledgers.get(name);
                    if (f != null
                            && f.isDone()
                            && !f.isCompletedExceptionally()
                            && f.join().isClosedOrDeleted()) {
                        ledgers.remove(name, f);
                    }
                });
    }

    private CompletableFuture<Void> deleteBrokerNode(String name) {
        return brokerStore.deleteRecursive(brokerPath(name)).handle((v, e) -> {
            if (e != null && !(Errors.unwrap(e) instanceof MetadataStoreException.NotFoundException)) {
                throw new java.util.concurrent.CompletionException(Errors.unwrap(e));
            }
            return null;
        });
    }

    // ------------------------------------------------------------------ lifecycle and the rest

    @Override
    public void shutdown() throws InterruptedException, ManagedLedgerException {
        Sync.await(shutdownAsync());
    }

    @Override
    public CompletableFuture<Void> shutdownAsync() {
        closed = true;
        List<CompletableFuture<Void>> all = new ArrayList<>();
        for (CompletableFuture<LakestreamManagedLedger> f : new ArrayList<>(ledgers.values())) {
            all.add(f.handle((ml, e) -> ml)
                    .thenCompose(ml -> ml == null
                            ? CompletableFuture.completedFuture(null)
                            : ml.closeAsync().exceptionally(e -> null)));
        }
        return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).whenComplete((v, e) -> {
            ledgers.clear();
            scheduler.shutdownNow();
            pool.shutdown();
        });
    }

    @Override
    public EntryCacheManager getEntryCacheManager() {
        return cacheManager;
    }

    @Override
    public void updateCacheEvictionTimeThreshold(long nanos) {
        cacheEvictionTimeThresholdNanos = nanos;
    }

    @Override
    public long getCacheEvictionTimeThreshold() {
        return cacheEvictionTimeThresholdNanos;
    }

    @Override
    public Map<String, ManagedLedger> getManagedLedgers() {
        Map<String, ManagedLedger> out = new LinkedHashMap<>();
        ledgers.forEach((n, f) -> {
            if (f.isDone() && !f.isCompletedExceptionally()) {
                out.put(n, f.join());
            }
        });
        return out;
    }

    @Override
    public ManagedLedgerFactoryMXBean getCacheStats() {
        return new LakestreamManagedLedgerFactoryMXBean(
                () -> getManagedLedgers().size(), log::cacheStats, cacheManager::getMaxSize);
    }

    @Override
    public void estimateUnloadedTopicBacklog(
            PersistentOfflineTopicStats stats, TopicName topicName, boolean accurate, Object ctx) throws Exception {
        LakestreamManagedLedger ml = Sync.await(openReadOnly(topicName.getPersistenceNamingEncoding(), null));
        stats.totalMessages = ml.getNumberOfEntries();
        stats.storageSize = ml.getTotalSize();
        List<VirtualLedgers.Ledger> ls = ml.ledgerList();
        for (int i = 0; i < ls.size(); i++) {
            stats.addLedgerDetails(
                    ml.ledgerEntries(i),
                    ls.get(i).timestamp(),
                    ml.ledgerSize(i),
                    ls.get(i).id());
        }
        long maxBacklog = 0;
        for (String n : Sync.await(ml.stream().cursorNames())) {
            var dc = Sync.await(ml.stream().openCursor(n, 0));
            long backlog = Math.max(
                    0,
                    ml.lceOffset()
                            + 1
                            - Math.max(dc.ackedBefore(), ml.startOffset())
                            - dc.individuallyAckedIn(dc.ackedBefore(), ml.lceOffset() + 1));
            stats.addCursorDetails(n, backlog, -1);
            maxBacklog = Math.max(maxBacklog, backlog);
        }
        stats.messageBacklog = maxBacklog;
    }

    @Override
    public ManagedLedgerFactoryConfig getConfig() {
        return config;
    }

    @Override
    public String toString() {
        return "LakestreamManagedLedgerFactory{" + root() + "}";
    }

    static void releaseAll(List<LogEntry> entries) {
        entries.forEach(e -> e.payload().release());
    }
}
