package dev.lakestream.tests.nemesis;

import dev.lakestream.iceberg.CatalogConfig;
import dev.lakestream.iceberg.Catalogs;
import dev.lakestream.tests.BrokerCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.catalog.Catalog;
import org.apache.pulsar.client.admin.PulsarAdmin;
import org.apache.pulsar.client.api.PulsarClient;

/**
 * The cluster nemesis runs share: broker processes on Oxia and S3Proxy behind the fault proxy (a
 * {@link BrokerCluster}), compacting into segments and collecting garbage as fast as they go, rolling ledgers every
 * 500 entries (so trims have closed ledgers to drop), materializing into an Iceberg catalog this process reads too;
 * and a client of every broker with transactions on.
 */
final class NemesisCluster implements AutoCloseable {

    private final BrokerCluster cluster;
    private final PulsarClient client;
    private final Catalog catalog;

    private NemesisCluster(BrokerCluster cluster, PulsarClient client, Catalog catalog) {
        this.cluster = cluster;
        this.client = client;
        this.catalog = catalog;
    }

    /**
     * The session a broker keeps with Oxia for the given fault kinds. 5 s when brokers are paused, so that a pause (8 s
     * at least) outlasts its owner's session; 10 s otherwise, so that Oxia's own outages (4 s at most) never expire
     * one: a broker whose session Oxia expired in an outage stopped serving lookups for the rest of a run, Pulsar's
     * load-manager leader election on Oxia never completing again on it (docs/reliability.md, finding 4), which is
     * Pulsar's coordination on Oxia, not this project's storage.
     */
    static Duration metadataSession(Set<FaultKind> kinds) {
        return kinds.contains(FaultKind.BROKER_PAUSE) ? Duration.ofSeconds(5) : Duration.ofSeconds(10);
    }

    static NemesisCluster start(String name, int brokers, Duration metadataSession) throws Exception {
        Path iceberg = Files.createTempDirectory(name + "-iceberg-");
        Map<String, String> conf = new LinkedHashMap<>();
        conf.put("metadataStoreSessionTimeoutMillis", Long.toString(metadataSession.toMillis()));
        // A black-holed S3 request gives up after this long and is retried: faults show within seconds.
        conf.put("lakestream.s3.requestTimeout", "3s");
        conf.put("brokerShutdownTimeoutMs", "0");
        conf.put("brokerDeleteInactiveTopicsEnabled", "false");
        conf.put("managedLedgerMaxEntriesPerLedger", "500");
        conf.put("managedLedgerMinLedgerRolloverTimeMinutes", "0");
        conf.put("lakestream.compaction.delay", "1s");
        conf.put("lakestream.compaction.interval", "1s");
        conf.put("lakestream.compaction.segmentSize", "64KiB");
        conf.put("lakestream.gc.interval", "5s");
        conf.put("lakestream.gc.safetyMargin", "10s");
        conf.put("lakestream.gc.orphanDelay", "10s");
        conf.put("lakestream.gc.commitWindow", "10s");
        conf.put("lakestream.iceberg.enabled", "true");
        conf.put("lakestream.iceberg.dataDir", iceberg.toString());
        conf.put("lakestream.iceberg.commitInterval", "500ms");
        conf.put("lakestream.iceberg.pollInterval", "100ms");
        conf.put("lakestream.iceberg.topicCheckInterval", "500ms");
        BrokerCluster cluster = BrokerCluster.start(name, brokers, conf);
        try {
            PulsarClient client = PulsarClient.builder()
                    .serviceUrl(BrokerCluster.serviceUrl(cluster.brokers()))
                    .enableTransaction(true)
                    .operationTimeout(10, TimeUnit.SECONDS)
                    .keepAliveInterval(5, TimeUnit.SECONDS)
                    .build();
            try (PulsarAdmin admin = PulsarAdmin.builder()
                    .serviceHttpUrl(BrokerCluster.webServiceUrl(cluster.brokers()))
                    .requestTimeout(60, TimeUnit.SECONDS)
                    .build()) {
                NemesisRun.createNamespaces(admin);
            }
            return new NemesisCluster(cluster, client, Catalogs.open(CatalogConfig.embedded(iceberg)));
        } catch (Exception | Error e) {
            cluster.close();
            throw e;
        }
    }

    BrokerCluster cluster() {
        return cluster;
    }

    PulsarClient client() {
        return client;
    }

    Catalog catalog() {
        return catalog;
    }

    @Override
    public void close() throws Exception {
        try {
            client.close();
            if (catalog instanceof AutoCloseable a) {
                a.close();
            }
        } finally {
            cluster.close();
        }
    }
}
