package dev.lakestream.core.log;

import dev.lakestream.core.metadata.MetadataStore;
import dev.lakestream.core.metadata.embedded.EmbeddedMetadataStore;
import dev.lakestream.core.metadata.embedded.EmbeddedMetadataStoreConfig;
import dev.lakestream.core.objectstore.fs.FileSystemObjectStore;
import dev.lakestream.core.objectstore.fs.FileSystemObjectStoreConfig;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The log on the embedded defaults: a directory as object store, RocksDB as metadata store. */
class EmbeddedLakestreamLogTest extends LakestreamLogTest {

    @TempDir
    Path dir;

    @Override
    protected Stores openStores() {
        return new Stores(
                new FileSystemObjectStore(FileSystemObjectStoreConfig.of(dir.resolve("objects"))),
                EmbeddedMetadataStore.open(EmbeddedMetadataStoreConfig.of(dir.resolve("metadata"))));
    }

    /** The embedded store is single-process: "another writer" shares the same store instance. */
    @Override
    protected MetadataStore secondMetadataClient(Stores stores) {
        return new NonClosingMetadataStore(stores.metadata());
    }
}
