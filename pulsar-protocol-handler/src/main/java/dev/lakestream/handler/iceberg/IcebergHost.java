package dev.lakestream.handler.iceberg;

import dev.lakestream.core.Lakestream;
import dev.lakestream.core.catalog.StreamInfo;
import dev.lakestream.iceberg.CatalogConfig;
import dev.lakestream.iceberg.Catalogs;
import dev.lakestream.iceberg.DeadLetters;
import dev.lakestream.iceberg.HostConfig;
import dev.lakestream.iceberg.IcebergConfigKeys;
import dev.lakestream.iceberg.MaterializerConfig;
import dev.lakestream.iceberg.MaterializerRunner;
import dev.lakestream.iceberg.Materializers;
import dev.lakestream.iceberg.TableMaintenance;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.pulsar.broker.PulsarService;
import org.apache.pulsar.broker.service.Topic;
import org.apache.pulsar.broker.service.persistent.PersistentTopic;
import org.apache.pulsar.common.naming.TopicName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Iceberg materializer hosted in a broker: materializes the topic partitions this broker owns whose topic or
 * namespace property {@code lakestream.iceberg} says {@code enabled} (or the broker default does), one
 * {@link MaterializerRunner} per partition, all on one small pool; stops a partition's runner (committing what it has)
 * when the broker no longer owns it or it is disabled; keeps a retention hold per stream at the table's committed
 * offset; compacts and expires each table at an interval. Design and settings: docs/iceberg.md.
 *
 * <p>Threads: one control thread (finding owned topics every {@code topicCheckInterval}, starting and stopping
 * runners, writing retention holds) and a pool of {@code threads} for the materializers and table upkeep. No broker
 * thread ever blocks on it: it follows ownership by looking at the broker's loaded topics, and closes runners
 * asynchronously.
 */
public final class IcebergHost implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(IcebergHost.class);
    /** The holder name of this materializer's retention holds. */
    public static final String HOLDER = "iceberg";
    private static final long METADATA_TIMEOUT_S = 10;

    private final PulsarService pulsar;
    private final Lakestream log;
    private final HostConfig host;
    private final MaterializerConfig config;
    private final Catalog catalog;
    private final Materializers materializers;
    private final ScheduledExecutorService control;
    private final ScheduledExecutorService pool;
    /**
     * Where the schema storage completes the futures the materializers wait for: never a thread that blocks (the
     * pool's threads wait on these futures; completing them on the pool would deadlock it).
     */
    private final java.util.concurrent.ExecutorService callbacks;
    /** Keyed by managed-ledger name; changed on the control thread only. */
    private final Map<String, HostedTopic> hosted = new ConcurrentHashMap<>();
    /** Managed ledgers of owned topics that are not on Lakestream (hybrid mode): nothing to materialize. */
    private final Set<String> notOnLakestream = ConcurrentHashMap.newKeySet();
    /** Problems already logged (a bad property value), so that each is logged once, not every check. */
    private final Set<String> warned = ConcurrentHashMap.newKeySet();
    private final IcebergMetrics metrics;
    private volatile boolean closed;

    private IcebergHost(PulsarService pulsar, Lakestream log, HostConfig host, MaterializerConfig config,
                        Catalog catalog) {
        this.pulsar = pulsar;
        this.log = log;
        this.host = host;
        this.config = config;
        this.catalog = catalog;
        this.control = Executors.newSingleThreadScheduledExecutor(named("lakestream-iceberg-control"));
        this.pool = Executors.newScheduledThreadPool(host.threads(), named("lakestream-iceberg"));
        this.callbacks = Executors.newSingleThreadExecutor(named("lakestream-iceberg-callbacks"));
        this.materializers = new Materializers(log, catalog, config, DeadLetters.log(), callbacks);
        this.metrics = new IcebergMetrics(() -> List.copyOf(hosted.values()), Clock.systemUTC());
    }

    /**
     * Starts the host when {@code lakestream.iceberg.enabled} is true; empty otherwise.
     *
     * @param properties the broker's properties with the storage's own {@code lakestream.*} values over them (the
     *     broker's copy of the object-store credentials is masked)
     * @param brokerDataDir where the embedded catalog and warehouse go unless {@code lakestream.iceberg.dataDir}
     *     or a catalog is configured
     * @throws dev.lakestream.core.config.ConfigException for an unknown {@code lakestream.iceberg.*} key or a bad value
     */
    public static Optional<IcebergHost> start(PulsarService pulsar, Lakestream log, Map<String, String> properties,
                                              Path brokerDataDir) {
        IcebergConfigKeys.requireKnown(properties.keySet());
        HostConfig host = HostConfig.fromProperties(properties);
        if (!host.enabled()) {
            return Optional.empty();
        }
        MaterializerConfig config = MaterializerConfig.fromProperties(properties);
        Path dataDir = Path.of(properties.getOrDefault(HostConfig.DATA_DIR, brokerDataDir.toString()));
        CatalogConfig catalogConfig = CatalogConfig.fromProperties(properties, dataDir);
        Catalog catalog = withPluginClassLoader(() -> {
            if (catalogConfig.uri().startsWith("jdbc:sqlite:")) {
                // DriverManager finds drivers on the application class path; this one is in the NAR, and registers
                // itself when its class is initialised.
                loadClass("org.sqlite.JDBC");
            }
            return Catalogs.open(catalogConfig);
        });
        IcebergHost h = new IcebergHost(pulsar, log, host, config, catalog);
        h.control.scheduleWithFixedDelay(h::checkTopics, 0, host.topicCheckInterval().toMillis(),
                TimeUnit.MILLISECONDS);
        if (!host.maintenanceInterval().isZero()) {
            long every = host.maintenanceInterval().toMillis();
            h.pool.scheduleWithFixedDelay(h::maintainTables, every, every, TimeUnit.MILLISECONDS);
        }
        LOG.info("Iceberg materializer started: catalog {} ({} at {}), warehouse {}, topics {}, {} threads,"
                        + " commit interval {}, retainUntilMaterialized {}", catalogConfig.name(), catalogConfig.type(),
                catalogConfig.uri(), catalogConfig.warehouse(), host.topicsEnabledByDefault()
                        ? "all unless disabled" : "enabled by the property " + HostConfig.PROPERTY,
                host.threads(), config.commitInterval(), host.retainUntilMaterialized());
        return Optional.of(h);
    }

    /** The topic partitions materialized here now (managed-ledger name to topic name). */
    public Map<String, String> hostedTopics() {
        Map<String, String> m = new LinkedHashMap<>();
        hosted.forEach((k, v) -> m.put(k, v.topicName));
        return m;
    }

    public IcebergMetrics metrics() {
        return metrics;
    }

    // ------------------------------------------------------------------------------------------ following topics

    /** On the control thread: compares the topics this broker owns with the runners, and writes retention holds. */
    private void checkTopics() {
        if (closed) {
            return;
        }
        try {
            Map<String, PersistentTopic> wanted = new LinkedHashMap<>();
            Map<String, PersistentTopic> owned = new HashMap<>();
            for (Map.Entry<String, CompletableFuture<Optional<Topic>>> e
                    : pulsar.getBrokerService().getTopics().entrySet()) {
                CompletableFuture<Optional<Topic>> f = e.getValue();
                if (!f.isDone() || f.isCompletedExceptionally()) {
                    continue;
                }
                Optional<Topic> t = f.getNow(Optional.empty());
                if (t.isEmpty() || !(t.get() instanceof PersistentTopic pt)) {
                    continue;
                }
                TopicName name = TopicName.get(e.getKey());
                if (pulsar.getBrokerService().isSystemTopic(name)) {
                    continue;
                }
                String ml = pt.getManagedLedger().getName();
                owned.put(ml, pt);
                if (notOnLakestream.contains(ml)) {
                    continue;
                }
                Boolean enabled = enabled(name, pt);
                // Properties that cannot be read now: a running topic keeps running (and keeps its hold).
                if (enabled == null ? hosted.containsKey(ml) : enabled) {
                    wanted.put(ml, pt);
                }
            }
            for (HostedTopic h : List.copyOf(hosted.values())) {
                if (h.closing != null) {
                    continue;
                }
                PersistentTopic now = owned.get(h.stream.name());
                if (now == null || now != h.brokerTopic) {
                    stop(h, false);   // unloaded (perhaps loaded again since): the next owner takes over
                } else if (!wanted.containsKey(h.stream.name())) {
                    stop(h, true);    // still owned but disabled: the hold goes, the table stays
                }
            }
            for (Map.Entry<String, PersistentTopic> w : wanted.entrySet()) {
                if (!hosted.containsKey(w.getKey())) {
                    startTopic(w.getKey(), w.getValue());
                }
            }
            for (HostedTopic h : hosted.values()) {
                if (h.closing == null) {
                    updateHold(h);
                }
            }
        } catch (RuntimeException e) {
            LOG.warn("Iceberg materializer: checking the owned topics failed; trying again in {}",
                    host.topicCheckInterval(), e);
        }
    }

    /** Whether the topic is materialized; null when its properties cannot be read now. */
    private Boolean enabled(TopicName name, PersistentTopic topic) {
        try {
            String topicProperty = topic.getManagedLedger().getProperties().get(HostConfig.PROPERTY);
            if (topicProperty == null && name.isPartitioned()) {
                topicProperty = pulsar.getPulsarResources().getNamespaceResources().getPartitionedTopicResources()
                        .getPartitionedTopicMetadataAsync(TopicName.get(name.getPartitionedTopicName()))
                        .get(METADATA_TIMEOUT_S, TimeUnit.SECONDS)
                        .map(m -> m.properties).map(p -> p.get(HostConfig.PROPERTY)).orElse(null);
            }
            String namespaceProperty = pulsar.getPulsarResources().getNamespaceResources()
                    .getPoliciesAsync(name.getNamespaceObject()).get(METADATA_TIMEOUT_S, TimeUnit.SECONDS)
                    .map(p -> p.properties).map(p -> p.get(HostConfig.PROPERTY)).orElse(null);
            return host.materializes(topicProperty, namespaceProperty, name.toString());
        } catch (IllegalArgumentException e) {
            if (warned.add(e.getMessage())) {
                LOG.warn("Iceberg materializer: {}; the topic is not materialized", e.getMessage());
            }
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        } catch (Exception e) {
            LOG.warn("Iceberg materializer: cannot read the properties of {} ({}); trying again", name, e.toString());
            return null;
        }
    }

    private void startTopic(String managedLedger, PersistentTopic topic) {
        String name = topic.getName();
        Optional<StreamInfo> stream;
        try {
            stream = log.catalog().lookup(Materializers.MANAGED_LEDGERS, managedLedger)
                    .get(METADATA_TIMEOUT_S, TimeUnit.SECONDS);
        } catch (Exception e) {
            LOG.warn("Iceberg materializer: cannot look up the stream of {} ({}); trying again", name, e.toString());
            return;
        }
        if (stream.isEmpty() || stream.get().deleted()) {
            // A topic on another storage class (hybrid mode): its entries are not in Lakestream.
            notOnLakestream.add(managedLedger);
            LOG.info("Iceberg materializer: {} is not stored on Lakestream; it is not materialized", name);
            return;
        }
        HostedTopic h = new HostedTopic(name, stream.get(),
                new MaterializerRunner(materializers.materializer(stream.get()), config.pollInterval(), pool), topic);
        if (!initialHold(h)) {
            return;   // without its hold retention could trim what the table lacks: not before it is in place
        }
        hosted.put(managedLedger, h);
        h.runner.start();
        LOG.info("Iceberg materializer: materializing {} into table {}", name, h.table());
    }

    /**
     * Before the runner starts: with retainUntilMaterialized, a hold at the stream's start unless the stream has
     * one already (kept by the previous owner at its table's committed offset); without, no hold.
     */
    private boolean initialHold(HostedTopic h) {
        long id = h.stream.id();
        try {
            if (!host.retainUntilMaterialized()) {
                log.retentionHolds().release(id, HOLDER).get(METADATA_TIMEOUT_S, TimeUnit.SECONDS);
                return true;
            }
            OptionalLong existing = log.retentionHolds().get(id, HOLDER).get(METADATA_TIMEOUT_S, TimeUnit.SECONDS);
            if (existing.isPresent()) {
                h.heldOffset = existing.getAsLong();
            } else {
                long start = log.stream(h.stream).startOffset().get(METADATA_TIMEOUT_S, TimeUnit.SECONDS);
                log.retentionHolds().hold(id, HOLDER, start).get(METADATA_TIMEOUT_S, TimeUnit.SECONDS);
                h.heldOffset = start;
            }
            return true;
        } catch (Exception e) {
            LOG.warn("Iceberg materializer: cannot set the retention hold of {} ({}); trying again", h.topicName,
                    e.toString());
            return false;
        }
    }

    /** Moves the hold up to the table's committed offset (asynchronously; a failed write is retried next check). */
    private void updateHold(HostedTopic h) {
        writeHold(h).whenComplete((v, e) -> {
            if (e != null) {
                LOG.warn("Iceberg materializer: moving the retention hold of {} failed ({}); trying again",
                        h.topicName, e.toString());
            }
        });
    }

    private CompletableFuture<Void> writeHold(HostedTopic h) {
        long committed = h.status().committedOffset();
        if (!host.retainUntilMaterialized() || committed < 0 || committed == h.heldOffset) {
            return CompletableFuture.completedFuture(null);
        }
        return log.retentionHolds().hold(h.stream.id(), HOLDER, committed).thenRun(() -> h.heldOffset = committed);
    }

    /**
     * Closes the runner (committing what it has) without blocking. Ownership lost: the hold moves to the final
     * committed offset and stays for the next owner. Disabled or deleted: the hold goes (the table stays).
     */
    private void stop(HostedTopic h, boolean disabled) {
        LOG.info("Iceberg materializer: stopping {} ({})", h.topicName,
                disabled ? "materialization disabled" : "no longer owned by this broker");
        h.closing = h.runner.closeAsync().exceptionally(e -> null)
                .thenCompose(v -> log.catalog().lookup(Materializers.MANAGED_LEDGERS, h.stream.name()))
                .thenCompose(now -> disabled || now.isEmpty() || now.get().deleted()
                        // disabled, or the topic was deleted (with its holds): no hold
                        ? log.retentionHolds().release(h.stream.id(), HOLDER).<Void>thenApply(b -> null)
                        : writeHold(h))
                .whenCompleteAsync((v, e) -> {
                    if (e != null) {
                        LOG.warn("Iceberg materializer: the retention hold of {} was not updated at its stop",
                                h.topicName, e);
                    }
                    hosted.remove(h.stream.name(), h);
                }, control);
    }

    // ---------------------------------------------------------------------------------------------- table upkeep

    /** On the pool: compacts and expires each table a runner here writes to (partitions share one). */
    private void maintainTables() {
        Set<TableIdentifier> tables = new HashSet<>();
        for (HostedTopic h : hosted.values()) {
            tables.add(h.runner.materializer().tableId());
        }
        for (TableIdentifier id : tables) {
            if (closed) {
                return;
            }
            try {
                Table t = catalog.loadTable(id);
                TableMaintenance.upkeep(t, config.targetFileSizeBytes(), host);
            } catch (RuntimeException e) {
                LOG.warn("Iceberg materializer: upkeep of table {} failed; trying again in {}", id,
                        host.maintenanceInterval(), e);
            }
        }
    }

    // -------------------------------------------------------------------------------------------------- closing

    /** Stops every runner (committing what each has, up to 60 s in all), then the threads and the catalog. */
    @Override
    public void close() {
        closed = true;
        CompletableFuture<Void> all;
        try {
            all = control.submit(() -> {
                List<CompletableFuture<Void>> futures = new ArrayList<>();
                for (HostedTopic h : hosted.values()) {
                    futures.add(h.closing != null ? h.closing : h.runner.closeAsync());
                }
                return CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new));
            }).get(10, TimeUnit.SECONDS);
            all.get(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            LOG.warn("Iceberg materializer: not every topic closed cleanly", e);
        }
        control.shutdownNow();
        pool.shutdownNow();
        callbacks.shutdownNow();
        if (catalog instanceof AutoCloseable c) {
            try {
                c.close();
            } catch (Exception e) {
                LOG.warn("Iceberg materializer: closing the catalog failed", e);
            }
        }
        LOG.info("Iceberg materializer stopped");
    }

    @Override
    public String toString() {
        return "Iceberg materializer (" + hosted.size() + " topic partitions)";
    }

    /**
     * Threads whose context class loader is the plugin's: Iceberg loads its catalog, FileIO and HTTP client classes
     * through the context class loader, and those are in the NAR, not on the broker's class path.
     */
    private static java.util.concurrent.ThreadFactory named(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, prefix + "-" + n.incrementAndGet());
            t.setDaemon(true);
            t.setContextClassLoader(IcebergHost.class.getClassLoader());
            return t;
        };
    }

    private static <T> T withPluginClassLoader(java.util.function.Supplier<T> action) {
        Thread current = Thread.currentThread();
        ClassLoader before = current.getContextClassLoader();
        current.setContextClassLoader(IcebergHost.class.getClassLoader());
        try {
            return action.get();
        } finally {
            current.setContextClassLoader(before);
        }
    }

    private static void loadClass(String name) {
        try {
            Class.forName(name, true, IcebergHost.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("The Iceberg catalog needs " + name + ", which the broker plugin's NAR"
                    + " should bundle", e);
        }
    }
}
