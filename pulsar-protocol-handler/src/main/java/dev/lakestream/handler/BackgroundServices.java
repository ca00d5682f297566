package dev.lakestream.handler;

import dev.lakestream.core.Lakestream;
import dev.lakestream.core.compaction.CompactionConfig;
import dev.lakestream.core.compaction.CompactionService;
import dev.lakestream.core.config.ConfigReader;
import dev.lakestream.core.gc.GcConfig;
import dev.lakestream.core.gc.GcService;
import dev.lakestream.core.segment.SegmentFormats;
import dev.lakestream.handler.iceberg.IcebergHost;
import dev.lakestream.pulsar.LakestreamManagedLedgerFactory;
import dev.lakestream.pulsar.LakestreamManagedLedgerStorage;
import dev.lakestream.pulsar.ledger.LakestreamManagedLedger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.apache.pulsar.broker.PulsarService;
import org.apache.pulsar.broker.ServiceConfiguration;
import org.apache.pulsar.broker.storage.ManagedLedgerStorage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The services one broker runs for the Lakestream storage it created: WAL garbage collection ({@link GcService}: every
 * broker runs one, at most one collects per deployment, under a lease), compaction of the streams of the topics it owns
 * into segments ({@link CompactionService}, following ownership: a managed ledger is open here only while its topic
 * is loaded here), the storage's metrics in the broker's own {@code /metrics}, and the Iceberg materializer when
 * enabled ({@link IcebergHost}). Retention trimming is not here: each topic's managed ledger trims its own stream when the broker
 * checks retention (docs/operations.md).
 */
final class BackgroundServices implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(BackgroundServices.class);

    private final Lakestream log;
    private final GcService gc;
    private final CompactionService compaction;
    private final Map<String, String> labels;
    /** The Iceberg materializer, when {@code lakestream.iceberg.enabled} (set once at start). */
    private IcebergHost iceberg;

    private BackgroundServices(Lakestream log, GcService gc, CompactionService compaction, Map<String, String> labels) {
        this.log = log;
        this.gc = gc;
        this.compaction = compaction;
        this.labels = labels;
    }

    /** Starts the services on the storage {@code pulsar} created; fails, naming the storage, when it is not ours. */
    static BackgroundServices start(PulsarService pulsar) {
        ManagedLedgerStorage storage = pulsar.getManagedLedgerStorage();
        if (!(storage instanceof LakestreamManagedLedgerStorage lakestream) || lakestream.lakestream() == null) {
            throw new IllegalStateException("The Lakestream broker plugin needs the broker's managed-ledger storage to"
                    + " be " + StorageCheck.STORAGE_CLASS + " opened from the broker's configuration, but it is "
                    + (storage == null
                            ? "null"
                            : storage.getClass().getName() + " from "
                                    + storage.getClass().getClassLoader()));
        }
        ServiceConfiguration conf = pulsar.getConfiguration();
        ConfigReader props = ConfigReader.of(conf.getProperties());
        GcConfig gcConfig = GcConfig.fromProperties(props);
        CompactionConfig compactionConfig = CompactionConfig.fromProperties(props);
        Lakestream log = lakestream.lakestream();
        // The Parquet segment format comes in this NAR (with the Parquet and Hadoop classes the storage jar in lib/
        // does not carry): the log reads compacted records through it from now on, and compaction writes it.
        log.addSegmentFormats(SegmentFormats.installed(BackgroundServices.class.getClassLoader()));
        LakestreamManagedLedgerFactory factory = lakestream.lakestreamFactory();
        BackgroundServices services = new BackgroundServices(
                log,
                GcService.start(log, gcConfig),
                CompactionService.start(log, compactionConfig, () -> ownedStreams(factory)),
                Map.of("cluster", conf.getClusterName()));
        try {
            services.iceberg = IcebergHost.start(pulsar, log, icebergProperties(conf, lakestream), Path.of("data"))
                    .orElse(null);
        } catch (RuntimeException | Error e) {
            services.close();
            throw e;
        }
        pulsar.addPrometheusRawMetricsProvider(out -> {
            StringBuilder text = new StringBuilder(8192);
            services.writeMetrics(text);
            out.write(text.toString().getBytes(StandardCharsets.UTF_8));
        });
        return services;
    }

    /** The streams of the managed ledgers open in this broker: those of the topics it owns now. */
    private static Collection<Long> ownedStreams(LakestreamManagedLedgerFactory factory) {
        return factory.getManagedLedgers().values().stream()
                .filter(LakestreamManagedLedger.class::isInstance)
                .map(ml -> ((LakestreamManagedLedger) ml).stream().id())
                .toList();
    }

    /**
     * The broker's properties with the storage's own {@code lakestream.*} values over them: the broker's copy of the
     * object-store credentials is masked once the storage has read it, and the Iceberg warehouse on S3 uses them.
     */
    private static Map<String, String> icebergProperties(
            ServiceConfiguration conf, LakestreamManagedLedgerStorage storage) {
        Map<String, String> props = new HashMap<>();
        Properties p = conf.getProperties();
        if (p != null) {
            for (String k : p.stringPropertyNames()) {
                props.put(k, p.getProperty(k));
            }
        }
        props.putAll(storage.lakestreamProperties());
        return props;
    }

    void writeMetrics(StringBuilder out) {
        log.metrics().writePrometheus(out, labels);
        IcebergHost h = iceberg;
        if (h != null) {
            h.metrics().writePrometheus(out, labels);
        }
    }

    @Override
    public void close() {
        IcebergHost h = iceberg;
        iceberg = null;
        if (h != null) {
            h.close();
        }
        compaction.close();
        gc.close();
        LOG.info("Lakestream background services stopped");
    }

    @Override
    public String toString() {
        return "WAL garbage collection (" + (gc.status().enabled() ? "enabled" : "disabled")
                + ", one collector per deployment under a lease), compaction of owned topics' streams ("
                + (compaction.compacts() ? "on" : "off") + "), metrics at /metrics (lakestream_*), "
                + (iceberg == null ? "Iceberg materializer off (lakestream.iceberg.enabled=false)" : iceberg);
    }
}
