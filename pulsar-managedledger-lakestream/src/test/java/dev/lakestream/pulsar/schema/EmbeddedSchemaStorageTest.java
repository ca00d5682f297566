package dev.lakestream.pulsar.schema;

import dev.lakestream.core.metadata.MetadataStore;
import dev.lakestream.core.metadata.embedded.EmbeddedMetadataStore;
import dev.lakestream.core.metadata.embedded.EmbeddedMetadataStoreConfig;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** {@link SchemaStorageContractTest} on the embedded (RocksDB) store; a "restart" closes and reopens its directory. */
class EmbeddedSchemaStorageTest extends SchemaStorageContractTest {

    @TempDir
    Path dir;

    @Override
    protected MetadataStore openStore() {
        return EmbeddedMetadataStore.open(
                EmbeddedMetadataStoreConfig.of(dir.resolve("metadata")).withSync(false));
    }

    @Override
    protected boolean allowsTwoClients() {
        return false;
    }
}
