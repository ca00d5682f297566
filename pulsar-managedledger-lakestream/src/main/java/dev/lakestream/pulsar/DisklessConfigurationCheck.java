package dev.lakestream.pulsar;

import java.util.ArrayList;
import java.util.List;
import org.apache.pulsar.broker.ServiceConfiguration;

/**
 * Refuses, at broker start-up, a diskless configuration that turns on a broker feature which writes to BookKeeper
 * directly (not through a managed ledger), so that the broker fails at once with the key to change rather than at
 * the feature's first use with "Not enough non-faulty bookies". The schema storage is checked only where these
 * features need it (system topics carry an Avro schema); compaction is its own plugin's business.
 */
public final class DisklessConfigurationCheck {

    /** What {@code transactionMetadataStoreProviderClassName} must name on a diskless broker. */
    public static final String TRANSACTION_STORE_PROVIDER =
            "dev.lakestream.pulsar.transaction.LakestreamTransactionMetadataStoreProvider";

    /** The schema storage on Lakestream (module pulsar-managedledger-lakestream, package schema). */
    static final String SCHEMA_STORAGE = "dev.lakestream.pulsar.schema.LakestreamSchemaStorageFactory";

    private DisklessConfigurationCheck() {}

    /** Every problem of {@code conf} for a diskless broker; empty when it can run without BookKeeper. */
    public static List<String> problems(ServiceConfiguration conf) {
        List<String> out = new ArrayList<>();
        String tracker = conf.getDelayedDeliveryTrackerFactoryClassName();
        if (conf.isDelayedDeliveryEnabled() && tracker != null && tracker.contains("BucketDelayedDeliveryTracker")) {
            out.add("delayedDeliveryTrackerFactoryClassName=" + tracker + ": the bucket tracker stores its snapshots"
                    + " in BookKeeper ledgers; use org.apache.pulsar.broker.delayed"
                    + ".InMemoryDelayedDeliveryTrackerFactory");
        }
        String txnStore = conf.getTransactionMetadataStoreProviderClassName();
        if (conf.isTransactionCoordinatorEnabled()
                && txnStore != null
                && txnStore.equals(
                        "org.apache.pulsar.transaction.coordinator.impl.MLTransactionMetadataStoreProvider")) {
            out.add("transactionMetadataStoreProviderClassName=" + txnStore + ": Pulsar's coordinator log only opens"
                    + " on BookKeeper managed ledgers; use " + TRANSACTION_STORE_PROVIDER);
        }
        if (conf.isFunctionsWorkerEnabled()) {
            out.add("functionsWorkerEnabled=true: Pulsar Functions keep packages and state in BookKeeper;"
                    + " set it to false");
        }
        String packages = conf.getPackagesManagementStorageProvider();
        if (conf.isEnablePackagesManagement() && packages != null && packages.contains("BookKeeper")) {
            out.add("enablePackagesManagement=true with packagesManagementStorageProvider=" + packages
                    + ": packages would be stored in BookKeeper; set enablePackagesManagement=false");
        }
        String schemas = conf.getSchemaRegistryStorageClassName();
        boolean avroSystemTopics = (conf.isSystemTopicEnabled() && conf.isTopicLevelPoliciesEnabled())
                || conf.isTransactionCoordinatorEnabled();
        if (avroSystemTopics && schemas != null && schemas.contains("BookkeeperSchemaStorage")) {
            out.add("schemaRegistryStorageClassName=" + schemas + ": topic policies (systemTopicEnabled,"
                    + " topicLevelPoliciesEnabled) and transactions (transactionCoordinatorEnabled) write system topics"
                    + " with an Avro schema, and this schema storage keeps schemas in BookKeeper; name a schema storage"
                    + " without BookKeeper (" + SCHEMA_STORAGE + ") or turn those features off");
        }
        String offload = conf.getManagedLedgerOffloadDriver();
        if (offload != null && !offload.isBlank()) {
            out.add("managedLedgerOffloadDriver=" + offload + ": offloading copies BookKeeper ledgers to tiered"
                    + " storage, and Lakestream topics already are in the object store; leave it unset");
        }
        return out;
    }

    /** Throws, naming every offending key, when {@code conf} needs BookKeeper. */
    public static void require(ServiceConfiguration conf) {
        List<String> problems = problems(conf);
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(
                    "This broker runs in diskless mode (" + LakestreamManagedLedgerStorage.MODE_KEY
                            + "=diskless, no BookKeeper) but its configuration needs BookKeeper: "
                            + String.join("; ", problems));
        }
    }
}
