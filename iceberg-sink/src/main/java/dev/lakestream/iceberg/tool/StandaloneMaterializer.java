package dev.lakestream.iceberg.tool;

import dev.lakestream.core.Lakestream;
import dev.lakestream.core.catalog.StreamInfo;
import dev.lakestream.core.concurrent.DaemonThreads;
import dev.lakestream.iceberg.DeadLetters;
import dev.lakestream.iceberg.MaterializerMetrics;
import dev.lakestream.iceberg.MaterializerRunner;
import dev.lakestream.iceberg.MaterializerStatus;
import dev.lakestream.iceberg.Materializers;
import dev.lakestream.iceberg.TableMaintenance;
import dev.lakestream.iceberg.TopicMaterializer;
import dev.lakestream.iceberg.TopicRef;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Materializes the selected topics of a log with no broker: a {@link MaterializerRunner} per topic partition (the
 * brokers' code), new topics picked up every {@code discoveryInterval}, tables compacted and their snapshots expired
 * every {@code maintenanceInterval}, the status published to the status file every few seconds. {@link #close()}
 * commits what is pending.
 *
 * <p>The control thread owns the runner map (discovery adds to it); {@link #close()} stops that thread before it
 * closes the runners.
 */
public final class StandaloneMaterializer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(StandaloneMaterializer.class);
    private static final long STATUS_PERIOD_MS = 2_000;

    private final ToolConfig config;
    private final Lakestream log;
    private final Catalog catalog;
    private final Materializers materializers;
    private final ExecutorService schemaExecutor =
            Executors.newCachedThreadPool(DaemonThreads.named("lakestream-schemas"));
    private final ScheduledExecutorService control =
            Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("lakestream-materialize-control"));
    private final ScheduledExecutorService maintenance =
            Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("lakestream-materialize-maintenance"));
    private final Map<Long, Running> runners = new LinkedHashMap<>();
    private volatile List<Running> published = List.of();
    private MetricsServer metrics;

    private record Running(StreamInfo stream, MaterializerRunner runner) {}

    /** @param log and {@code catalog}: not owned */
    public StandaloneMaterializer(ToolConfig config, Lakestream log, Catalog catalog) {
        this.config = config;
        this.log = log;
        this.catalog = catalog;
        this.materializers = new Materializers(log, catalog, config.materializer(), DeadLetters.log(), schemaExecutor);
    }

    /** The managed-ledger streams of the selected topics. */
    public List<StreamInfo> selectedStreams() {
        return selectedStreams(materializers, config.selection());
    }

    static List<StreamInfo> selectedStreams(Materializers materializers, TopicSelection selection) {
        return materializers.topicStreams().stream()
                .filter(s -> selection.includes(TopicRef.fromManagedLedgerName(s.name())))
                .toList();
    }

    /** Starts discovery, maintenance, status publication and (when configured) {@code /metrics}. */
    public StandaloneMaterializer start() {
        if (config.metricsPort() >= 0) {
            metrics = MetricsServer.start(config.metricsAddress(), config.metricsPort(), this::prometheusText);
            LOG.info(
                    "serving the lakestream_iceberg_* metrics on http://{}:{}/metrics",
                    config.metricsAddress(),
                    metrics.port());
        }
        // The periodic tasks catch and log their own failures; closing the executors stops them, so their futures
        // have nothing to report.
        var unusedDiscovery = control.scheduleWithFixedDelay(
                this::discover, 0, config.discoveryInterval().toMillis(), TimeUnit.MILLISECONDS);
        var unusedStatus = control.scheduleWithFixedDelay(
                this::publishStatus, STATUS_PERIOD_MS, STATUS_PERIOD_MS, TimeUnit.MILLISECONDS);
        long maintain = config.upkeep().maintenanceInterval().toMillis();
        if (maintain > 0) {
            var unusedMaintenance =
                    maintenance.scheduleWithFixedDelay(this::maintain, maintain, maintain, TimeUnit.MILLISECONDS);
        }
        return this;
    }

    private void discover() {
        try {
            for (StreamInfo s : selectedStreams()) {
                if (!runners.containsKey(s.id())) {
                    MaterializerRunner r = materializers.runner(s).start();
                    runners.put(s.id(), new Running(s, r));
                    LOG.info(
                            "materializing {} (stream {}) into {}",
                            r.materializer().topic(),
                            s.id(),
                            r.materializer().tableId());
                }
            }
            published = List.copyOf(runners.values());
            runners.values().forEach(r -> r.runner().warnIfStepRunsPast(MaterializerRunner.STUCK_STEP));
        } catch (RuntimeException e) {
            LOG.warn("looking for topics to materialize failed; trying again in {}", config.discoveryInterval(), e);
        }
    }

    private void maintain() {
        Set<TableIdentifier> tables = new LinkedHashSet<>();
        published.forEach(r -> tables.add(r.runner().materializer().tableId()));
        for (TableIdentifier id : tables) {
            try {
                Table table = catalog.loadTable(id);
                int rewritten =
                        TableMaintenance.upkeep(table, config.materializer().targetFileSizeBytes(), config.upkeep());
                if (rewritten > 0) {
                    LOG.info("compacted {}: {} small files rewritten", id, rewritten);
                }
            } catch (RuntimeException e) {
                LOG.warn(
                        "maintenance of table {} failed; trying again in {}",
                        id,
                        config.upkeep().maintenanceInterval(),
                        e);
            }
        }
    }

    /** The status of every running topic partition. */
    public List<StatusFile.Topic> status() {
        long now = System.currentTimeMillis();
        List<StatusFile.Topic> out = new ArrayList<>();
        for (Running r : published) {
            TopicMaterializer m = r.runner().materializer();
            out.add(StatusFile.Topic.of(
                    m.topic().toString(), r.stream().id(), m.tableId().toString(), m.status(), now));
        }
        return out;
    }

    /** The {@code lakestream_iceberg_*} series of every running topic partition, as {@code /metrics} serves them. */
    public String prometheusText() {
        List<MaterializerMetrics.Topic> topics = new ArrayList<>();
        for (Running r : published) {
            TopicMaterializer m = r.runner().materializer();
            topics.add(new MaterializerMetrics.Topic(
                    m.topic().toString(), m.tableId().toString(), m.status()));
        }
        StringBuilder out = new StringBuilder();
        MaterializerMetrics.writePrometheus(out, Map.of(), topics, materializers.budget(), System.currentTimeMillis());
        return out.toString();
    }

    /** The port {@code /metrics} listens on, or -1 when it is not served. */
    public int metricsPort() {
        return metrics == null ? -1 : metrics.port();
    }

    private void publishStatus() {
        writeStatus(true);
    }

    private void writeStatus(boolean running) {
        try {
            StatusFile.write(
                    config.statusFile(),
                    new StatusFile.Snapshot(
                            ProcessHandle.current().pid(), System.currentTimeMillis(), running, status()));
        } catch (RuntimeException e) {
            LOG.warn("could not publish the status", e);
        }
    }

    /** Stops discovery and maintenance, then closes every runner (each commits what it has written). */
    @Override
    public void close() {
        control.shutdown();
        maintenance.shutdown();
        try {
            control.awaitTermination(60, TimeUnit.SECONDS);
            maintenance.awaitTermination(120, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        published = List.copyOf(runners.values());
        // Close in parallel: each commit takes a catalog round trip.
        List<Thread> closing = new ArrayList<>();
        for (Running r : runners.values()) {
            closing.add(Thread.ofPlatform().start(() -> r.runner().close()));
        }
        for (Thread t : closing) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        writeStatus(false);
        if (metrics != null) {
            metrics.close();
        }
        schemaExecutor.shutdownNow();
    }

    /** One topic partition's outcome of {@link #once}. */
    public record OnceResult(String topic, long streamId, String table, long target, MaterializerStatus status) {
        /** Everything up to {@code target} is in the table (close committed what was pending, or failed). */
        public boolean complete() {
            return status.lastError() == null && status.nextOffset() >= target;
        }
    }

    /**
     * Materializes each selected topic partition up to the end its stream had when it was reached, commits and
     * closes: one pass, on this thread. A failing attempt is retried a few times before giving up on that topic.
     */
    public List<OnceResult> once() {
        List<OnceResult> results = new ArrayList<>();
        for (StreamInfo s : selectedStreams()) {
            long target = log.stream(s).endOffset().join();
            TopicMaterializer m = materializers.materializer(s);
            int failures = 0;
            m.open();
            while (true) {
                int entries = m.poll();
                MaterializerStatus st = m.status();
                if (st.state() == MaterializerStatus.State.PAUSED) {
                    break;
                }
                if (st.state() == MaterializerStatus.State.RETRYING) {
                    if (++failures >= 5) {
                        break;
                    }
                    sleep(500L * failures);
                    continue;
                }
                if (entries == 0 && st.nextOffset() >= target) {
                    break;
                }
            }
            m.close();
            OnceResult r =
                    new OnceResult(m.topic().toString(), s.id(), m.tableId().toString(), target, m.status());
            LOG.info(
                    "{}: materialized up to offset {} of {}{}",
                    r.topic(),
                    r.status().nextOffset(),
                    target,
                    r.complete() ? "" : " (incomplete: " + r.status().lastError() + ")");
            results.add(r);
        }
        schemaExecutor.shutdownNow();
        long now = System.currentTimeMillis();
        try {
            StatusFile.write(
                    config.statusFile(),
                    new StatusFile.Snapshot(
                            ProcessHandle.current().pid(),
                            now,
                            false,
                            results.stream()
                                    .map(r -> StatusFile.Topic.of(r.topic(), r.streamId(), r.table(), r.status(), now))
                                    .toList()));
        } catch (RuntimeException e) {
            LOG.warn("could not publish the status", e);
        }
        return results;
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
