package dev.lakestream.core.objectstore.fs;

import dev.lakestream.core.objectstore.ObjectStore;
import dev.lakestream.core.objectstore.ObjectStoreConformanceTest;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The conformance suite against a directory, with the defaults of the embedded mode (fsync on). */
class FileSystemObjectStoreConformanceTest extends ObjectStoreConformanceTest {

    @TempDir
    Path dir;

    @Override
    protected ObjectStore createStore() {
        return new FileSystemObjectStore(FileSystemObjectStoreConfig.of(dir.resolve("objects")));
    }
}
