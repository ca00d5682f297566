package dev.lakestream.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lakestream.core.catalog.StreamInfo;
import dev.lakestream.core.metadata.embedded.EmbeddedMetadataStore;
import dev.lakestream.core.metadata.embedded.EmbeddedMetadataStoreConfig;
import dev.lakestream.core.objectstore.fs.FileSystemObjectStore;
import dev.lakestream.core.objectstore.fs.FileSystemObjectStoreConfig;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Deleting a stream's data also drops what the process keeps in memory for it (a broker deletes topics all day). */
class StreamLogDeleteTest {

    @TempDir
    Path dir;

    @Test
    void deletingAStreamsDataForgetsItsReadState() {
        try (FileSystemObjectStore objects =
                        new FileSystemObjectStore(FileSystemObjectStoreConfig.of(dir.resolve("o")));
                EmbeddedMetadataStore metadata =
                        EmbeddedMetadataStore.open(EmbeddedMetadataStoreConfig.of(dir.resolve("m")));
                Lakestream log = Lakestream.open(objects, metadata, LakestreamConfig.DEFAULT)) {
            StreamInfo info = log.catalog().create("test", "deleted", Map.of()).join();
            StreamLog stream = log.stream(info);
            for (int i = 0; i < 3; i++) {
                stream.append(1, Unpooled.wrappedBuffer(("e" + i).getBytes(StandardCharsets.UTF_8)))
                        .join();
            }
            stream.read(0, 2, 1 << 20).join().forEach(e -> e.payload().release());
            stream.read(2, 2, 1 << 20).join().forEach(e -> e.payload().release());
            assertThat(log.reader().streamsTracked()).isEqualTo(1);

            log.catalog()
                    .delete("test", "deleted")
                    .thenCompose(t -> stream.deleteData())
                    .join();
            assertThat(log.reader().streamsTracked()).isZero();
        }
    }
}
