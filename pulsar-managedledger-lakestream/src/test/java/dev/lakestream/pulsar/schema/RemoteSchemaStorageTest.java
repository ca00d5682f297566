package dev.lakestream.pulsar.schema;

import dev.lakestream.core.metadata.MetadataStore;
import dev.lakestream.core.metadata.oxia.OxiaMetadataStore;
import dev.lakestream.core.metadata.oxia.OxiaMetadataStoreConfig;
import dev.lakestream.testkit.OxiaServerExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link SchemaStorageContractTest} on a real Oxia server (one per class); each client is a separate Oxia client, so
 * the concurrency tests run two brokers' worth of clients against one server.
 */
class RemoteSchemaStorageTest extends SchemaStorageContractTest {

    @RegisterExtension
    static final OxiaServerExtension OXIA = new OxiaServerExtension();

    @Override
    protected MetadataStore openStore() {
        return OxiaMetadataStore.open(OxiaMetadataStoreConfig.of(OXIA.serviceAddress()));
    }

    @Override
    protected boolean allowsTwoClients() {
        return true;
    }
}
