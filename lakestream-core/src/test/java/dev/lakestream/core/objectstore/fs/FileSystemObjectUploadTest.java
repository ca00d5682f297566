package dev.lakestream.core.objectstore.fs;

import static dev.lakestream.core.objectstore.ObjectStoreTestSupport.await;
import static dev.lakestream.core.objectstore.ObjectStoreTestSupport.failure;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lakestream.core.objectstore.ObjectStoreException;
import dev.lakestream.core.objectstore.ObjectUpload;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Streamed uploads into the filesystem store: a temporary file, renamed into place whole at completion. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FileSystemObjectUploadTest {

    private static final int PART = FileSystemObjectStore.UPLOAD_PART_BYTES;

    @TempDir
    Path dir;

    private FileSystemObjectStore store;

    @BeforeEach
    void open() {
        store = new FileSystemObjectStore(FileSystemObjectStoreConfig.of(dir.resolve("root")));
    }

    @AfterEach
    void close() {
        store.close();
    }

    private static byte[] random(int size) {
        byte[] b = new byte[size];
        new Random(size).nextBytes(b);
        return b;
    }

    /** Writes {@code bytes} in uneven pieces, waiting for readiness between them as a writer does. */
    private static void writeInPieces(ObjectUpload upload, byte[] bytes) {
        int at = 0;
        int piece = 1;
        while (at < bytes.length) {
            int n = Math.min(bytes.length - at, piece);
            upload.write(ByteBuffer.wrap(bytes, at, n));
            at += n;
            piece = piece * 3 + 7; // 1, 10, 37, ... up to a part at once
            if (piece > PART) {
                piece = 1000;
            }
            await(upload.ready());
        }
    }

    private long temporaryFiles() throws IOException {
        try (Stream<Path> files = Files.walk(dir.resolve("root"))) {
            return files.filter(p -> p.getFileName().toString().startsWith(FileSystemObjectStore.TEMP_PREFIX))
                    .count();
        }
    }

    @Test
    void aMultiPartUploadRoundTripsByteExactAndIsInvisibleUntilComplete() throws IOException {
        byte[] bytes = random(4 * PART + 12345);
        ObjectUpload upload = store.newUpload("segments/1/a.parquet");
        writeInPieces(upload, bytes);
        assertThat(upload.length()).isEqualTo(bytes.length);
        assertThat(temporaryFiles()).as("the parts so far, in a temporary file").isEqualTo(1);
        assertThat(await(store.head("segments/1/a.parquet")))
                .as("invisible before complete")
                .isEmpty();
        assertThat(upload.peakBufferedBytes())
                .as("bounded by about three parts")
                .isLessThanOrEqualTo(3L * PART);

        await(upload.complete());

        ByteBuffer read = await(store.get("segments/1/a.parquet"));
        assertThat(read).isEqualTo(ByteBuffer.wrap(bytes));
        assertThat(await(store.head("segments/1/a.parquet")).orElseThrow().size())
                .isEqualTo(bytes.length);
        assertThat(temporaryFiles()).isZero();
        assertThat(upload.bufferedBytes()).isZero();
        assertThatThrownBy(() -> upload.write(ByteBuffer.wrap(bytes, 0, 1)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("segments/1/a.parquet");
    }

    @Test
    void anObjectSmallerThanAPartIsOnePut() throws IOException {
        ObjectUpload upload = store.newUpload("small");
        upload.write(ByteBuffer.wrap(random(1000)));
        assertThat(temporaryFiles()).as("nothing written before complete").isZero();
        await(upload.complete());
        assertThat(await(store.get("small"))).isEqualTo(ByteBuffer.wrap(random(1000)));
    }

    @Test
    void anAbortedUploadLeavesNoObjectAndNoTemporaryFile() throws IOException {
        ObjectUpload upload = store.newUpload("segments/1/b.parquet");
        writeInPieces(upload, random(3 * PART));
        assertThat(temporaryFiles()).isEqualTo(1);
        await(upload.abort());
        assertThat(await(store.head("segments/1/b.parquet"))).isEmpty();
        assertThat(temporaryFiles()).isZero();
        assertThatThrownBy(() -> upload.write(ByteBuffer.allocate(1))).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aFailedPartFailsTheUploadNamingKeyAndPartAndLeavesNothing() throws IOException {
        ObjectUpload upload = store.newUpload("segments/1/c.parquet");
        writeInPieces(upload, random(PART + 10));
        // The store closes under the upload: its next part is refused.
        store.close();
        upload.write(ByteBuffer.wrap(random(2 * PART)));
        ObjectStoreException e = failure(upload.complete(), ObjectStoreException.class);
        assertThat(e.getMessage()).contains("segments/1/c.parquet").contains("part 2");
        store = new FileSystemObjectStore(FileSystemObjectStoreConfig.of(dir.resolve("root")));
        assertThat(await(store.head("segments/1/c.parquet"))).isEmpty();
        assertThat(temporaryFiles()).as("the temporary file deleted").isZero();
    }
}
