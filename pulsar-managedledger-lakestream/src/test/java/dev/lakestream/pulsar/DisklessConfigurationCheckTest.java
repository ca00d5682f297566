package dev.lakestream.pulsar;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Properties;
import org.apache.pulsar.broker.ServiceConfiguration;
import org.apache.pulsar.metadata.api.MetadataStoreConfig;
import org.apache.pulsar.metadata.api.extended.MetadataStoreExtended;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DisklessConfigurationCheckTest {

    @TempDir
    Path dir;

    private static ServiceConfiguration disklessWithEverything() {
        ServiceConfiguration c = new ServiceConfiguration();
        c.setSystemTopicEnabled(true);
        c.setTopicLevelPoliciesEnabled(true);
        c.setTransactionCoordinatorEnabled(true);
        c.setTransactionMetadataStoreProviderClassName(DisklessConfigurationCheck.TRANSACTION_STORE_PROVIDER);
        c.setDelayedDeliveryEnabled(true);
        c.setDelayedDeliveryTrackerFactoryClassName(
                "org.apache.pulsar.broker.delayed.InMemoryDelayedDeliveryTrackerFactory");
        c.setBrokerDeduplicationEnabled(true);
        c.setFunctionsWorkerEnabled(false);
        c.setEnablePackagesManagement(false);
        c.setSchemaRegistryStorageClassName(DisklessConfigurationCheck.SCHEMA_STORAGE);
        return c;
    }

    @Test
    void theShippedFeatureSetPasses() {
        assertThat(DisklessConfigurationCheck.problems(disklessWithEverything()))
                .isEmpty();
    }

    @Test
    void systemTopicsNeedASchemaStorageWithoutBookKeeper() {
        // Pulsar's defaults: topic policies on, schemas in BookKeeper.
        assertThat(DisklessConfigurationCheck.problems(new ServiceConfiguration()))
                .singleElement()
                .asString()
                .startsWith("schemaRegistryStorageClassName=org.apache.pulsar.broker.service.schema"
                        + ".BookkeeperSchemaStorageFactory")
                .contains(DisklessConfigurationCheck.SCHEMA_STORAGE);
        ServiceConfiguration off = new ServiceConfiguration();
        off.setTopicLevelPoliciesEnabled(false);
        off.setTransactionCoordinatorEnabled(false);
        assertThat(DisklessConfigurationCheck.problems(off))
                .as("no system topics with a schema")
                .isEmpty();
        ServiceConfiguration txn = new ServiceConfiguration();
        txn.setTopicLevelPoliciesEnabled(false);
        txn.setTransactionCoordinatorEnabled(true);
        txn.setTransactionMetadataStoreProviderClassName(DisklessConfigurationCheck.TRANSACTION_STORE_PROVIDER);
        assertThat(DisklessConfigurationCheck.problems(txn))
                .singleElement()
                .asString()
                .startsWith("schemaRegistryStorageClassName=");
    }

    @Test
    void everyFeatureThatWritesToBookKeeperIsNamed() {
        ServiceConfiguration c = disklessWithEverything();
        c.setDelayedDeliveryTrackerFactoryClassName(
                "org.apache.pulsar.broker.delayed.bucket.BucketDelayedDeliveryTrackerFactory");
        c.setTransactionMetadataStoreProviderClassName(
                "org.apache.pulsar.transaction.coordinator.impl.MLTransactionMetadataStoreProvider");
        c.setFunctionsWorkerEnabled(true);
        c.setEnablePackagesManagement(true);
        c.setManagedLedgerOffloadDriver("aws-s3");
        assertThat(DisklessConfigurationCheck.problems(c))
                .hasSize(5)
                .anyMatch(p -> p.startsWith("delayedDeliveryTrackerFactoryClassName="))
                .anyMatch(p -> p.startsWith("transactionMetadataStoreProviderClassName="))
                .anyMatch(p -> p.startsWith("functionsWorkerEnabled=true"))
                .anyMatch(p -> p.startsWith("enablePackagesManagement=true"))
                .anyMatch(p -> p.startsWith("managedLedgerOffloadDriver=aws-s3"));
        // Off features are not checked.
        c.setDelayedDeliveryEnabled(false);
        c.setTransactionCoordinatorEnabled(false);
        assertThat(DisklessConfigurationCheck.problems(c)).hasSize(3);
    }

    @Test
    void aDisklessStorageRefusesToInitialiseWithThem() throws Exception {
        ServiceConfiguration conf = disklessWithEverything();
        conf.setDelayedDeliveryTrackerFactoryClassName(
                "org.apache.pulsar.broker.delayed.bucket.BucketDelayedDeliveryTrackerFactory");
        Properties p = new Properties();
        p.setProperty("lakestreamStorageMode", "diskless");
        p.setProperty("lakestream.fs.root", dir.resolve("objects").toString());
        p.setProperty("lakestream.embedded.dataDir", dir.resolve("meta").toString());
        conf.setProperties(p);
        try (MetadataStoreExtended broker = MetadataStoreExtended.create(
                        "memory:local", MetadataStoreConfig.builder().build());
                LakestreamManagedLedgerStorage storage = new LakestreamManagedLedgerStorage()) {
            assertThatThrownBy(() -> storage.initialize(conf, broker, null, null, null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("diskless")
                    .hasMessageContaining("delayedDeliveryTrackerFactoryClassName=org.apache.pulsar.broker.delayed"
                            + ".bucket.BucketDelayedDeliveryTrackerFactory");
        }
    }
}
