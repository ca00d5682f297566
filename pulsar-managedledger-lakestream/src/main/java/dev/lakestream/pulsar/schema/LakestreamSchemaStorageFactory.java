package dev.lakestream.pulsar.schema;

import dev.lakestream.core.Lakestream;
import dev.lakestream.pulsar.LakestreamManagedLedgerStorage;
import org.apache.pulsar.broker.PulsarService;
import org.apache.pulsar.broker.service.schema.SchemaStorageFactory;
import org.apache.pulsar.broker.storage.ManagedLedgerStorage;
import org.apache.pulsar.common.protocol.schema.SchemaStorage;

/**
 * Broker setting {@code schemaRegistryStorageClassName=dev.lakestream.pulsar.schema.LakestreamSchemaStorageFactory}:
 * keeps the schema registry in the Lakestream metadata store of the broker's
 * {@link LakestreamManagedLedgerStorage} (Oxia or the embedded store), so typed producers and consumers work without
 * BookKeeper. The broker creates the schema storage after the managed-ledger storage, so the store is open here.
 */
public final class LakestreamSchemaStorageFactory implements SchemaStorageFactory {

    @Override
    public SchemaStorage create(PulsarService pulsar) {
        ManagedLedgerStorage storage = pulsar.getManagedLedgerStorage();
        if (!(storage instanceof LakestreamManagedLedgerStorage lakestreamStorage)) {
            throw new IllegalStateException("schemaRegistryStorageClassName="
                    + getClass().getName()
                    + " keeps schemas in the Lakestream metadata store, but this broker's managed-ledger storage is "
                    + (storage == null ? "not initialised" : storage.getClass().getName())
                    + ": set managedLedgerStorageClassName=" + LakestreamManagedLedgerStorage.class.getName()
                    + ", or use org.apache.pulsar.broker.service.schema.BookkeeperSchemaStorageFactory");
        }
        Lakestream log = lakestreamStorage.lakestream();
        if (log == null) {
            throw new IllegalStateException(
                    "schemaRegistryStorageClassName=" + getClass().getName()
                            + ": the broker's " + LakestreamManagedLedgerStorage.class.getSimpleName()
                            + " has no Lakestream log of its own (it was built from parts, not from broker.conf)");
        }
        return new LakestreamSchemaStorage(log.metadataStore(), log.config().metadataRoot(), pulsar.getExecutor());
    }
}
