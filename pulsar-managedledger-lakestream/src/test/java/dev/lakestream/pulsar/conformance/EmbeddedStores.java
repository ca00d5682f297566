package dev.lakestream.pulsar.conformance;

import dev.lakestream.core.metadata.embedded.EmbeddedMetadataStore;
import dev.lakestream.core.metadata.embedded.EmbeddedMetadataStoreConfig;
import dev.lakestream.core.objectstore.fs.FileSystemObjectStore;
import dev.lakestream.core.objectstore.fs.FileSystemObjectStoreConfig;
import java.nio.file.Path;

/**
 * The embedded pair: objects on the local filesystem, metadata in the embedded (RocksDB) store, both under the
 * test's temporary directory. Fsync is off: the "crash" tests abandon a factory inside the process, they do not
 * lose the machine, so durability against power loss is not what they exercise.
 */
final class EmbeddedStores {

    private EmbeddedStores() {}

    static ManagedLedgerConformanceTest.Stores open(Path scratch) {
        FileSystemObjectStore objects = new FileSystemObjectStore(
                FileSystemObjectStoreConfig.of(scratch.resolve("objects")).withFsync(false));
        try {
            return new ManagedLedgerConformanceTest.Stores(
                    objects,
                    EmbeddedMetadataStore.open(EmbeddedMetadataStoreConfig.of(scratch.resolve("metadata"))
                            .withSync(false)));
        } catch (RuntimeException e) {
            objects.close();
            throw e;
        }
    }
}
