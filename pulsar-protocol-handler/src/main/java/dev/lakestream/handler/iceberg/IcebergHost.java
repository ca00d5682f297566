package dev.lakestream.handler.iceberg;

import dev.lakestream.core.Lakestream;
import dev.lakestream.core.concurrent.DaemonThreads;
import dev.lakestream.iceberg.CatalogConfig;
import dev.lakestream.iceberg.Catalogs;
import dev.lakestream.iceberg.DeadLetters;
import dev.lakestream.iceberg.HostConfig;
import dev.lakestream.iceberg.IcebergConfigKeys;
import dev.lakestream.iceberg.MaterializerConfig;
import dev.lakestream.iceberg.Materializers;
import dev.lakestream.iceberg.TableMaintenance;
import dev.lakestream.pulsar.InitialHolds;
import dev.lakestream.pulsar.LakestreamManagedLedgerFactory;
import dev.lakestream.pulsar.LakestreamManagedLedgerStorage;
import java.nio.file.Path;
import java.time.Clock;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.pulsar.broker.PulsarService;
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
 *
 * <p>The jobs: {@link OwnedTopics} (which partitions this broker owns and which are enabled), {@link HostedRunners}
 * (the runners' lifecycle and retention holds), {@link IcebergMetrics} (the {@code /metrics} series); this class
 * wires them, schedules the checks and the table upkeep, and closes everything.
 */
public final class IcebergHost implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(IcebergHost.class);
    /** The holder name of this materializer's retention holds. */
    public static final String HOLDER = HostedRunners.HOLDER;

    private final HostConfig host;
    private final MaterializerConfig config;
    private final Catalog catalog;
    private final ScheduledExecutorService control;
    private final ScheduledExecutorService pool;
    /**
     * Where the schema storage completes the futures the materializers wait for: never a thread that blocks (the
     * pool's threads wait on these futures; completing them on the pool would deadlock it).
     */
    private final java.util.concurrent.ExecutorService callbacks;

    private final OwnedTopics ownership;
    /** The broker's Lakestream managed-ledger factory (null only when the broker's storage is not ours). */
    private final LakestreamManagedLedgerFactory factory;

    private final HostedRunners runners;
    private final IcebergMetrics metrics;
    private volatile boolean closed;

    private IcebergHost(
            PulsarService pulsar, Lakestream log, HostConfig host, MaterializerConfig config, Catalog catalog) {
        this.host = host;
        this.config = config;
        this.catalog = catalog;
        this.control = Executors.newSingleThreadScheduledExecutor(named("lakestream-iceberg-control"));
        this.pool = Executors.newScheduledThreadPool(host.threads(), named("lakestream-iceberg"));
        this.callbacks = Executors.newSingleThreadExecutor(named("lakestream-iceberg-callbacks"));
        Materializers materializers = new Materializers(log, catalog, config, DeadLetters.log(), callbacks);
        TopicEnablement enablement = new TopicEnablement(pulsar, host);
        this.ownership = new OwnedTopics(pulsar, enablement);
        this.factory = pulsar.getManagedLedgerStorage() instanceof LakestreamManagedLedgerStorage s
                ? s.lakestreamFactory()
                : null;
        if (factory != null && host.retainUntilMaterialized()) {
            // New topics are held from their first entry: this host's topic check finds them only later.
            factory.setInitialHolds(new NewTopicHolds(pulsar, enablement));
        }
        this.runners = new HostedRunners(log, host, config, materializers, pool, control);
        this.metrics = new IcebergMetrics(runners::all, materializers.budget(), Clock.systemUTC());
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
    public static Optional<IcebergHost> start(
            PulsarService pulsar, Lakestream log, Map<String, String> properties, Path brokerDataDir) {
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
        // The periodic tasks end when close() shuts their executors down; nothing waits on their futures.
        var unusedCheck = h.control.scheduleWithFixedDelay(
                h::checkTopics, 0, host.topicCheckInterval().toMillis(), TimeUnit.MILLISECONDS);
        if (!host.upkeep().maintenanceInterval().isZero()) {
            long every = host.upkeep().maintenanceInterval().toMillis();
            var unusedMaintenance =
                    h.pool.scheduleWithFixedDelay(h::maintainTables, every, every, TimeUnit.MILLISECONDS);
        }
        LOG.info(
                "Iceberg materializer started: catalog {} ({} at {}), warehouse {}, topics {}, {} threads,"
                        + " commit interval {}, retainUntilMaterialized {}",
                catalogConfig.name(),
                catalogConfig.type(),
                catalogConfig.uri(),
                catalogConfig.warehouse(),
                host.topicsEnabledByDefault()
                        ? "all unless disabled"
                        : "enabled by the property " + TopicEnablement.PROPERTY,
                host.threads(),
                config.commitInterval(),
                host.retainUntilMaterialized());
        return Optional.of(h);
    }

    /** The topic partitions materialized here now (managed-ledger name to topic name). */
    public Map<String, String> hostedTopics() {
        return runners.topics();
    }

    public IcebergMetrics metrics() {
        return metrics;
    }

    /** On the control thread: follows the topics this broker owns with runners, and moves retention holds up. */
    private void checkTopics() {
        if (closed) {
            return;
        }
        try {
            runners.follow(ownership.look(runners::isNotOnLakestream, runners::isRunning));
        } catch (RuntimeException e) {
            LOG.warn(
                    "Iceberg materializer: checking the owned topics failed; trying again in {}",
                    host.topicCheckInterval(),
                    e);
        }
    }

    // ---------------------------------------------------------------------------------------------- table upkeep

    /** On the pool: compacts and expires each table a runner here writes to (partitions share one). */
    private void maintainTables() {
        Set<TableIdentifier> tables = new HashSet<>();
        for (HostedTopic h : runners.all()) {
            tables.add(h.runner.materializer().tableId());
        }
        for (TableIdentifier id : tables) {
            if (closed) {
                return;
            }
            try {
                Table t = catalog.loadTable(id);
                TableMaintenance.upkeep(t, config.targetFileSizeBytes(), host.upkeep());
            } catch (RuntimeException e) {
                LOG.warn(
                        "Iceberg materializer: upkeep of table {} failed; trying again in {}",
                        id,
                        host.upkeep().maintenanceInterval(),
                        e);
            }
        }
    }

    // -------------------------------------------------------------------------------------------------- closing

    /** Stops every runner (committing what each has, up to 60 s in all), then the threads and the catalog. */
    @Override
    @SuppressWarnings("FutureReturnValueIgnored") // both the submitted task's future and the one it returns are awaited
    public void close() {
        closed = true;
        if (factory != null) {
            factory.setInitialHolds(InitialHolds.NONE);
        }
        CompletableFuture<Void> all;
        try {
            all = control.submit(runners::closeAll).get(10, TimeUnit.SECONDS);
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
        return "Iceberg materializer (" + runners.all().size() + " topic partitions)";
    }

    /**
     * Threads whose context class loader is the plugin's: Iceberg loads its catalog, FileIO and HTTP client classes
     * through the context class loader, and those are in the NAR, not on the broker's class path.
     */
    private static java.util.concurrent.ThreadFactory named(String prefix) {
        java.util.concurrent.ThreadFactory daemons = DaemonThreads.numbered(prefix + "-");
        return r -> {
            Thread t = daemons.newThread(r);
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
            throw new IllegalStateException(
                    "The Iceberg catalog needs " + name + ", which the broker plugin's NAR" + " should bundle", e);
        }
    }
}
