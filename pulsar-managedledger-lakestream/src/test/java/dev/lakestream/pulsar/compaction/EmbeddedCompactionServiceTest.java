package dev.lakestream.pulsar.compaction;

import dev.lakestream.core.metadata.embedded.EmbeddedMetadataStore;
import dev.lakestream.core.metadata.embedded.EmbeddedMetadataStoreConfig;
import dev.lakestream.core.objectstore.fs.FileSystemObjectStore;
import dev.lakestream.core.objectstore.fs.FileSystemObjectStoreConfig;
import java.nio.file.Path;

/** {@link CompactionServiceTest} on the embedded pair: a directory of objects and the embedded metadata store. */
class EmbeddedCompactionServiceTest extends CompactionServiceTest {

    @Override
    protected Stores openStores(Path scratch) {
        FileSystemObjectStore objects = new FileSystemObjectStore(
                FileSystemObjectStoreConfig.of(scratch.resolve("objects")).withFsync(false));
        return new Stores(
                objects,
                EmbeddedMetadataStore.open(EmbeddedMetadataStoreConfig.of(scratch.resolve("metadata"))
                        .withSync(false)));
    }
}
