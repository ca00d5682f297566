package dev.lakestream.core.log;

import dev.lakestream.core.metadata.embedded.EmbeddedMetadataStore;
import dev.lakestream.core.metadata.embedded.EmbeddedMetadataStoreConfig;
import dev.lakestream.core.objectstore.fs.FileSystemObjectStore;
import dev.lakestream.core.objectstore.fs.FileSystemObjectStoreConfig;
import java.nio.file.Files;
import java.nio.file.Path;

/** Read completeness on the embedded defaults: a directory as object store, RocksDB as metadata store. */
class EmbeddedStreamReadCompletenessTest extends StreamReadCompletenessTest {

    @Override
    protected LakestreamLogTest.Stores openStores() throws Exception {
        Path dir = Files.createTempDirectory("read-completeness");
        return new LakestreamLogTest.Stores(
                new FileSystemObjectStore(FileSystemObjectStoreConfig.of(dir.resolve("objects"))),
                EmbeddedMetadataStore.open(EmbeddedMetadataStoreConfig.of(dir.resolve("metadata"))));
    }
}
