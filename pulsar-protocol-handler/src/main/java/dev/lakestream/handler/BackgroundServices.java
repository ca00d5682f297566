package dev.lakestream.handler;

import dev.lakestream.core.Lakestream;
import dev.lakestream.pulsar.LakestreamManagedLedgerStorage;
import java.nio.charset.StandardCharsets;
import org.apache.pulsar.broker.PulsarService;
import org.apache.pulsar.broker.storage.ManagedLedgerStorage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The services one broker runs for the Lakestream storage it created: the storage's metrics in the broker's own
 * {@code /metrics}, and WAL garbage collection (at most one collector active per deployment, under a lease). Retention
 * trimming is not here: each topic's managed ledger trims its own stream (docs/operations.md).
 */
final class BackgroundServices implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(BackgroundServices.class);

    private final Lakestream log;

    private BackgroundServices(Lakestream log) {
        this.log = log;
    }

    /** Starts the services on the storage {@code pulsar} created; fails, naming the storage, when it is not ours. */
    static BackgroundServices start(PulsarService pulsar) {
        ManagedLedgerStorage storage = pulsar.getManagedLedgerStorage();
        if (!(storage instanceof LakestreamManagedLedgerStorage lakestream) || lakestream.lakestream() == null) {
            throw new IllegalStateException("The Lakestream broker plugin needs the broker's managed-ledger storage to"
                    + " be " + StorageCheck.STORAGE_CLASS + " opened from the broker's configuration, but it is "
                    + (storage == null ? "null" : storage.getClass().getName() + " from "
                    + storage.getClass().getClassLoader()));
        }
        BackgroundServices services = new BackgroundServices(lakestream.lakestream());
        pulsar.addPrometheusRawMetricsProvider(out -> {
            StringBuilder text = new StringBuilder(4096);
            services.writeMetrics(text);
            out.write(text.toString().getBytes(StandardCharsets.UTF_8));
        });
        return services;
    }

    void writeMetrics(StringBuilder out) {
        // Interim until the core's metrics land: the object cache only.
        Lakestream.CacheStats c = log.cacheStats();
        out.append("# TYPE lakestream_cache_hits_total counter\nlakestream_cache_hits_total ").append(c.hits())
                .append("\n# TYPE lakestream_cache_misses_total counter\nlakestream_cache_misses_total ")
                .append(c.misses()).append('\n');
    }

    @Override
    public void close() {
        LOG.info("Lakestream background services stopped");
    }

    @Override
    public String toString() {
        return "metrics at /metrics (lakestream_*)";
    }
}
