package dev.lakestream.core.trim;

import dev.lakestream.core.metadata.embedded.EmbeddedMetadataStore;
import dev.lakestream.core.metadata.embedded.EmbeddedMetadataStoreConfig;
import dev.lakestream.core.objectstore.fs.FileSystemObjectStore;
import dev.lakestream.core.objectstore.fs.FileSystemObjectStoreConfig;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** {@link SoftTrimClampTest} on the embedded pair: a directory as object store, RocksDB as metadata store. */
class EmbeddedSoftTrimClampTest extends SoftTrimClampTest {

    @TempDir
    Path dir;

    @Override
    protected Stores openStores() {
        return new Stores(
                new FileSystemObjectStore(FileSystemObjectStoreConfig.of(dir.resolve("objects"))),
                EmbeddedMetadataStore.open(EmbeddedMetadataStoreConfig.of(dir.resolve("metadata"))));
    }
}
