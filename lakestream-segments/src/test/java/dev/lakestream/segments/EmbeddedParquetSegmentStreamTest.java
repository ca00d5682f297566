package dev.lakestream.segments;

import dev.lakestream.core.log.LakestreamLogTest;
import dev.lakestream.core.metadata.embedded.EmbeddedMetadataStore;
import dev.lakestream.core.metadata.embedded.EmbeddedMetadataStoreConfig;
import dev.lakestream.core.objectstore.fs.FileSystemObjectStore;
import dev.lakestream.core.objectstore.fs.FileSystemObjectStoreConfig;
import java.nio.file.Files;
import java.nio.file.Path;

/** Parquet segments in a stream on the embedded pair: a directory as object store, RocksDB as metadata store. */
class EmbeddedParquetSegmentStreamTest extends ParquetSegmentStreamTest {

    @Override
    protected LakestreamLogTest.Stores openStores() throws Exception {
        Path dir = Files.createTempDirectory("parquet-segments");
        return new LakestreamLogTest.Stores(
                new FileSystemObjectStore(FileSystemObjectStoreConfig.of(dir.resolve("objects"))),
                EmbeddedMetadataStore.open(EmbeddedMetadataStoreConfig.of(dir.resolve("metadata"))));
    }
}
