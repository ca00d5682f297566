package dev.lakestream.core.compaction;

import dev.lakestream.core.log.LakestreamLogTest;
import dev.lakestream.core.metadata.embedded.EmbeddedMetadataStore;
import dev.lakestream.core.metadata.embedded.EmbeddedMetadataStoreConfig;
import dev.lakestream.core.objectstore.fs.FileSystemObjectStore;
import dev.lakestream.core.objectstore.fs.FileSystemObjectStoreConfig;
import java.nio.file.Files;
import java.nio.file.Path;

/** Compaction on the embedded defaults: a directory as object store, RocksDB as metadata store. */
class EmbeddedCompactionServiceTest extends CompactionServiceTest {

    @Override
    protected LakestreamLogTest.Stores openStores() throws Exception {
        Path dir = Files.createTempDirectory("compaction-service");
        return new LakestreamLogTest.Stores(
                new FileSystemObjectStore(FileSystemObjectStoreConfig.of(dir.resolve("objects"))),
                EmbeddedMetadataStore.open(EmbeddedMetadataStoreConfig.of(dir.resolve("metadata"))));
    }
}
