package dev.lakestream.core.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lakestream.core.metrics.LakestreamMetrics.ObjectStoreOp;
import dev.lakestream.core.objectstore.ForwardingObjectStore;
import dev.lakestream.core.objectstore.ForwardingObjectStream;
import dev.lakestream.core.objectstore.ObjectStore;
import dev.lakestream.core.objectstore.ObjectStream;
import dev.lakestream.core.objectstore.fs.FileSystemObjectStore;
import dev.lakestream.core.objectstore.fs.FileSystemObjectStoreConfig;
import dev.lakestream.core.wal.ObjectCache;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How streams count: one GET when the store streams, one per read when each read is a request of its own. */
class MeteredObjectStoreTest {

    @TempDir
    Path dir;

    private FileSystemObjectStore fs;
    private LakestreamMetrics metrics;

    @BeforeEach
    void open() {
        fs = new FileSystemObjectStore(FileSystemObjectStoreConfig.of(dir));
        fs.put("k", ByteBuffer.wrap(new byte[1000])).join();
        metrics = new LakestreamMetrics(new ObjectCache(1000), 1000, () -> 0);
    }

    @AfterEach
    void close() {
        fs.close();
    }

    @Test
    void aStreamOfRangedGetsCountsEachRead() {
        OperationMetrics gets = readInTwoSteps(metrics.meter(fs));
        assertThat(gets.requests()).isEqualTo(2);
        assertThat(gets.bytes()).isEqualTo(1000);
    }

    @Test
    void aStreamingStoresStreamIsOneGetWithItsBytes() {
        ObjectStore streaming = new ForwardingObjectStore("streaming", fs) {
            @Override
            public CompletableFuture<ObjectStream> openStream(String key, long offset, long length) {
                return store.openStream(key, offset, length).thenApply(s -> new ForwardingObjectStream(s) {
                    @Override
                    public boolean requestPerRead() {
                        return false;
                    }
                });
            }
        };
        OperationMetrics gets = readInTwoSteps(metrics.meter(streaming));
        assertThat(gets.requests()).isEqualTo(1);
        assertThat(gets.bytes()).isEqualTo(1000);
    }

    /** Reads the object through a stream in two steps; the GETs counted. */
    private OperationMetrics readInTwoSteps(ObjectStore metered) {
        ObjectStream s = metered.openStream("k", 0, 1000).join();
        assertThat(s.read(300).join().remaining()).isEqualTo(300);
        assertThat(s.read(700).join().remaining()).isEqualTo(700);
        return metrics.objectStore(ObjectStoreOp.GET);
    }
}
