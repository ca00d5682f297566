package dev.lakestream.core.log;

import dev.lakestream.core.metadata.MetadataStore;
import dev.lakestream.core.metadata.embedded.EmbeddedMetadataStore;
import dev.lakestream.core.metadata.embedded.EmbeddedMetadataStoreConfig;
import dev.lakestream.core.objectstore.fs.FileSystemObjectStore;
import dev.lakestream.core.objectstore.fs.FileSystemObjectStoreConfig;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** Permanent write fences on the embedded pair; the "Ursa" client shares the one store instance. */
class EmbeddedWriteFenceTest extends WriteFenceTest {

    @TempDir
    Path dir;

    @Override
    protected LakestreamLogTest.Stores openStores() {
        return new LakestreamLogTest.Stores(
                new FileSystemObjectStore(FileSystemObjectStoreConfig.of(dir.resolve("objects"))),
                EmbeddedMetadataStore.open(EmbeddedMetadataStoreConfig.of(dir.resolve("metadata"))));
    }

    @Override
    protected MetadataStore secondMetadataClient(LakestreamLogTest.Stores stores) {
        return new NonClosingMetadataStore(stores.metadata());
    }
}
