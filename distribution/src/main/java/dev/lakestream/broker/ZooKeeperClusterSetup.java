package dev.lakestream.broker;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import org.apache.bookkeeper.client.BookKeeperAdmin;
import org.apache.bookkeeper.conf.ServerConfiguration;
import org.apache.commons.configuration2.convert.DisabledListDelimiterHandler;
import org.apache.pulsar.PulsarClusterMetadataSetup;
import org.apache.pulsar.broker.resources.PulsarResources;
import org.apache.pulsar.common.naming.NamespaceName;
import org.apache.pulsar.common.naming.SystemTopicNames;
import org.apache.pulsar.common.partition.PartitionedTopicMetadata;
import org.apache.pulsar.common.policies.data.ClusterData;
import org.apache.pulsar.metadata.api.MetadataStoreException;
import org.apache.pulsar.metadata.api.extended.MetadataStoreExtended;
import org.apache.pulsar.metadata.bookkeeper.PulsarMetadataBookieDriver;
import org.apache.pulsar.metadata.bookkeeper.PulsarMetadataClientDriver;
import org.apache.pulsar.metadata.impl.MetadataStoreFactoryImpl;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a new cluster's metadata on ZooKeeper stores, what Pulsar 5.0.1's {@link PulsarClusterMetadataSetup} writes
 * there except DistributedLog's namespace.
 *
 * <p>Why not Pulsar's tool: on ZooKeeper stores it also initialises DistributedLog's namespace metadata (for the
 * functions worker's package storage) and so needs {@code distributedlog-core}, which this distribution leaves out
 * (no functions worker runs here); it fails with {@code NoClassDefFoundError:
 * org/apache/distributedlog/exceptions/ZKException}. Everything else it writes is done here through Pulsar's own
 * classes ({@link PulsarResources} and the tool's public helpers), so the nodes are byte for byte the same:
 *
 * <ul>
 *   <li>BookKeeper's metadata ({@code /ledgers}, formatted with {@link BookKeeperAdmin#format}) when it does not
 *       exist yet (on a cluster whose bookies run it always exists);</li>
 *   <li>{@code /bookies} ({@code {}}: the bookies' rack information, read by the broker's placement policy);</li>
 *   <li>the cluster ({@code /admin/clusters/NAME}), tenants {@code public} and {@code pulsar}, namespaces
 *       {@code public/default} (32 bundles) and {@code pulsar/system} (64 bundles), and the transaction coordinators'
 *       partitioned topic (16 partitions): the tool's defaults.</li>
 * </ul>
 * Each step is skipped when its node exists, so a second run, or a run against a cluster set up by Pulsar's tool,
 * changes nothing.
 */
final class ZooKeeperClusterSetup {

    private static final Logger LOG = LoggerFactory.getLogger(ZooKeeperClusterSetup.class);

    /** {@code PulsarClusterMetadataSetup}'s default {@code --initial-num-transaction-coordinators}. */
    static final int TRANSACTION_COORDINATORS = 16;

    private ZooKeeperClusterSetup() {}

    /** True when Pulsar's tool would initialise DistributedLog for these stores: both are ZooKeeper. */
    static boolean applies(String metadataStoreUrl, String configurationStoreUrl) {
        return MetadataStoreFactoryImpl.isBasedOnZookeeper(metadataStoreUrl)
                && MetadataStoreFactoryImpl.isBasedOnZookeeper(configurationStoreUrl);
    }

    static void run(
            String cluster,
            String metadataStoreUrl,
            String configurationStoreUrl,
            String webServiceUrl,
            String brokerServiceUrl,
            int sessionTimeoutMillis)
            throws Exception {
        LOG.info(
                "Writing the metadata of cluster {} on {} (configuration store {})",
                cluster,
                metadataStoreUrl,
                configurationStoreUrl);
        MetadataStoreExtended local =
                PulsarClusterMetadataSetup.initLocalMetadataStore(metadataStoreUrl, sessionTimeoutMillis);
        try {
            boolean separateConfigStore = !configurationStoreUrl.equals(metadataStoreUrl);
            MetadataStoreExtended config = separateConfigStore
                    ? PulsarClusterMetadataSetup.initConfigMetadataStore(configurationStoreUrl, sessionTimeoutMillis)
                    : local;
            try {
                formatBookKeeperIfAbsent(local, metadataStoreUrl, sessionTimeoutMillis);
                createIfAbsent(local, "/bookies", "{}".getBytes(StandardCharsets.UTF_8));
                write(new PulsarResources(local, config), cluster, webServiceUrl, brokerServiceUrl);
            } finally {
                if (separateConfigStore) {
                    config.close();
                }
            }
        } finally {
            local.close();
        }
        LOG.info("Cluster {} metadata written", cluster);
    }

    private static void formatBookKeeperIfAbsent(
            MetadataStoreExtended local, String metadataStoreUrl, int sessionTimeoutMillis) throws Exception {
        if (local.exists("/ledgers").get()) {
            return;
        }
        // As Pulsar's tool: BookKeeper reaches the store through Pulsar's metadata driver ("metadata-store:" URIs).
        PulsarMetadataBookieDriver.init();
        PulsarMetadataClientDriver.init();
        ServerConfiguration bk = new ServerConfiguration();
        bk.setListDelimiterHandler(new DisabledListDelimiterHandler());
        bk.setMetadataServiceUri("metadata-store:" + metadataStoreUrl);
        bk.setZkTimeout(sessionTimeoutMillis);
        if (!BookKeeperAdmin.format(bk, false, false)) {
            throw new IllegalStateException("Could not format BookKeeper's metadata (/ledgers) on " + metadataStoreUrl);
        }
    }

    private static void write(PulsarResources resources, String cluster, String webServiceUrl, String brokerServiceUrl)
            throws Exception {
        if (!resources.getClusterResources().clusterExists(cluster)) {
            resources
                    .getClusterResources()
                    .createCluster(
                            cluster,
                            ClusterData.builder()
                                    .serviceUrl(webServiceUrl)
                                    .brokerServiceUrl(brokerServiceUrl)
                                    .build());
        }
        PulsarClusterMetadataSetup.createTenantIfAbsent(resources, "public", cluster);
        PulsarClusterMetadataSetup.createTenantIfAbsent(resources, NamespaceName.SYSTEM_NAMESPACE.getTenant(), cluster);
        PulsarClusterMetadataSetup.createNamespaceIfAbsent(
                resources,
                NamespaceName.get("public", "default"),
                cluster,
                PulsarClusterMetadataSetup.DEFAULT_BUNDLE_NUMBER);
        PulsarClusterMetadataSetup.createNamespaceIfAbsent(
                resources,
                NamespaceName.SYSTEM_NAMESPACE,
                cluster,
                PulsarClusterMetadataSetup.SYSTEM_NAMESPACE_BUNDLE_NUMBER);
        var partitioned = resources.getNamespaceResources().getPartitionedTopicResources();
        if (partitioned
                .getPartitionedTopicMetadataAsync(SystemTopicNames.TRANSACTION_COORDINATOR_ASSIGN)
                .get()
                .isEmpty()) {
            partitioned.createPartitionedTopic(
                    SystemTopicNames.TRANSACTION_COORDINATOR_ASSIGN,
                    new PartitionedTopicMetadata(TRANSACTION_COORDINATORS));
        }
    }

    private static void createIfAbsent(MetadataStoreExtended store, String path, byte[] value) throws Exception {
        if (store.exists(path).get()) {
            return;
        }
        try {
            store.put(path, value, Optional.of(-1L)).get();
        } catch (ExecutionException e) {
            // Another broker set up the cluster at the same time.
            if (!(e.getCause() instanceof MetadataStoreException.BadVersionException)) {
                throw e;
            }
        }
    }
}
