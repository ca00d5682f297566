package dev.lakestream.core.objectstore.fs;

import static dev.lakestream.core.objectstore.ObjectStoreTestSupport.await;
import static dev.lakestream.core.objectstore.ObjectStoreTestSupport.failure;
import static dev.lakestream.core.objectstore.ObjectStoreTestSupport.string;
import static dev.lakestream.core.objectstore.ObjectStoreTestSupport.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.lakestream.core.objectstore.InvalidObjectKeyException;
import dev.lakestream.core.objectstore.ObjectAlreadyExistsException;
import dev.lakestream.core.objectstore.ObjectCorruptedException;
import dev.lakestream.core.objectstore.ObjectInfo;
import dev.lakestream.core.objectstore.ObjectListing;
import dev.lakestream.core.objectstore.ObjectNotFoundException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Files an Ursa filesystem storage wrote, laid down here by hand: the object's bytes as they are, and beside them a
 * sidecar {@code <file>.crc32c} holding the CRC32C in decimal. The store reads them beside its own trailer files.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FileSystemObjectStoreUrsaFilesTest {

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

    private static long crc32c(byte[] bytes) {
        CRC32C crc = new CRC32C();
        crc.update(bytes);
        return crc.getValue();
    }

    /** Writes {@code key} as Ursa does: the bytes, then the sidecar with {@code sidecar} in it. */
    private Path ursaFile(String key, byte[] bytes, String sidecar) throws IOException {
        Path file = store.root().resolve(key);
        Files.createDirectories(file.getParent());
        Files.write(file, bytes);
        Files.writeString(file.resolveSibling(file.getFileName() + ".crc32c"), sidecar, StandardCharsets.US_ASCII);
        return file;
    }

    private Path ursaFile(String key, byte[] bytes) throws IOException {
        return ursaFile(key, bytes, Long.toString(crc32c(bytes)));
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(ByteBuf b) {
        try {
            return b.toString(StandardCharsets.UTF_8);
        } finally {
            b.release();
        }
    }

    @Test
    void anUrsaFileIsReadWholeAndByRangeAndItsSizeIsTheFilesLength() throws IOException {
        byte[] content = bytes("an object Ursa's local storage wrote");
        ursaFile("2026/12/03/10/00/00/u1", content);

        assertThat(string(await(store.get("2026/12/03/10/00/00/u1"))))
                .isEqualTo(new String(content, StandardCharsets.UTF_8));
        assertThat(text(await(store.get("2026/12/03/10/00/00/u1", PooledByteBufAllocator.DEFAULT))))
                .isEqualTo(new String(content, StandardCharsets.UTF_8));
        assertThat(string(await(store.get("2026/12/03/10/00/00/u1", 3, 6)))).isEqualTo("object");
        // A range running past the end ends at the object's last byte: the file's last byte, no trailer dropped.
        assertThat(string(await(store.get("2026/12/03/10/00/00/u1", content.length - 5, 100))))
                .isEqualTo("wrote");
        assertThat(text(await(store.get("2026/12/03/10/00/00/u1", 0, 2, PooledByteBufAllocator.DEFAULT))))
                .isEqualTo("an");

        ObjectInfo head = await(store.head("2026/12/03/10/00/00/u1")).orElseThrow();
        assertThat(head.size()).isEqualTo(content.length);
        assertThat(await(store.list("2026/", null, 10)).objects())
                .extracting(ObjectInfo::key, ObjectInfo::size)
                .containsExactly(tuple("2026/12/03/10/00/00/u1", (long) content.length));
    }

    @Test
    void theSidecarDecidesTheFormatNotTheLastBytes() throws IOException {
        // An Ursa object that happens to end like our trailer (here: a whole trailer-format file, so even its CRC
        // matches) is still read as Ursa's: all its bytes, checked against the sidecar.
        byte[] inner = bytes("hello");
        ByteBuffer file = ByteBuffer.allocate(inner.length + 8);
        file.put(inner).putInt((int) crc32c(inner)).putInt(FileSystemObjectStore.TRAILER_MAGIC);
        byte[] content = file.array();
        ursaFile("u/ends-like-ours", content);

        ByteBuffer got = await(store.get("u/ends-like-ours"));
        assertThat(got.remaining()).isEqualTo(content.length);
        assertThat(got).isEqualTo(ByteBuffer.wrap(content));
        assertThat(await(store.head("u/ends-like-ours")).orElseThrow().size()).isEqualTo(content.length);
        assertThat(await(store.get("u/ends-like-ours", content.length - 4, 4)))
                .isEqualTo(ByteBuffer.wrap(bytes("LSC1")));
    }

    @Test
    void theSidecarMayHoldTheChecksumSignedOrUnsignedWithANewline() throws IOException {
        // CRC32C("123456789") = 0xE3069283: its top bit is set, so the signed and unsigned decimals differ.
        byte[] content = bytes("123456789");
        assertThat(crc32c(content)).isEqualTo(0xE3069283L);
        ursaFile("s/unsigned", content, "3808858755");
        ursaFile("s/signed", content, Integer.toString(0xE3069283));
        ursaFile("s/newline", content, "3808858755\n");
        for (String key : List.of("s/unsigned", "s/signed", "s/newline")) {
            assertThat(string(await(store.get(key)))).as(key).isEqualTo("123456789");
        }
    }

    @Test
    void aMismatchingSidecarIsCorruptedNamingTheKeyAndBothChecksums() throws IOException {
        byte[] content = bytes("123456789");
        Path file = ursaFile("bad/sidecar", content, "12345");
        ObjectCorruptedException e = failure(store.get("bad/sidecar"), ObjectCorruptedException.class);
        assertThat(e.getMessage())
                .contains("'bad/sidecar'")
                .contains(file + ".crc32c")
                .contains("3808858755") // what the bytes have, in the sidecar's decimal
                .contains("e3069283")
                .contains("12345"); // what the sidecar holds
        failure(store.get("bad/sidecar", PooledByteBufAllocator.DEFAULT), ObjectCorruptedException.class);
        // Ranged reads are not verified, as for trailer files.
        assertThat(string(await(store.get("bad/sidecar", 0, 3)))).isEqualTo("123");
    }

    @Test
    void alteredContentUnderAnUrsaSidecarIsCorrupted() throws IOException {
        Path file = ursaFile("bad/content", bytes("the original content"));
        Files.write(file, bytes("The original content"));
        assertThat(failure(store.get("bad/content"), ObjectCorruptedException.class)
                        .getMessage())
                .contains("'bad/content'");
    }

    @Test
    void aSidecarThatIsNotADecimalChecksumIsCorrupted() throws IOException {
        ursaFile("bad/text", bytes("x"), "not a number");
        ursaFile("bad/empty", bytes("x"), "");
        ursaFile("bad/range", bytes("x"), "4294967296"); // 2^32: no CRC32C
        assertThat(failure(store.get("bad/text"), ObjectCorruptedException.class)
                        .getMessage())
                .contains("'bad/text'")
                .contains("not a number");
        failure(store.get("bad/empty"), ObjectCorruptedException.class);
        failure(store.get("bad/range"), ObjectCorruptedException.class);
    }

    @Test
    void aFileWithNeitherTrailerNorSidecarIsCorruptedNamingTheMissingSidecar() throws IOException {
        Path file = store.root().resolve("lone/file");
        Files.createDirectories(file.getParent());
        Files.write(file, bytes("an Ursa object whose sidecar is missing"));
        assertThat(failure(store.get("lone/file"), ObjectCorruptedException.class)
                        .getMessage())
                .contains("'lone/file'")
                .contains("trailer")
                .contains(file.getFileName() + ".crc32c");
    }

    @Test
    void aListingShowsEachObjectOfBothFormatsOnceAndNoSidecar() throws IOException {
        await(store.put("m/a", utf8("ours, 10 b")));
        ursaFile("m/b", bytes("ursa's, 12 b"));
        await(store.put("m/c", utf8("ours")));
        ursaFile("m/d/e", bytes("ursa, deeper"));
        ursaFile("m/f", bytes("")); // an empty Ursa object: 0 bytes, not "shorter than a trailer"
        // An orphaned sidecar (its object gone) and a temporary file are no objects.
        Files.writeString(store.root().resolve("m/g.crc32c"), "0");
        Files.writeString(store.root().resolve("m/.lakestream-tmp-leftover"), "crash debris");

        List<ObjectInfo> all = new ArrayList<>();
        String continuation = null;
        do {
            ObjectListing page = await(store.list("m/", continuation, 2));
            assertThat(page.objects()).hasSizeLessThanOrEqualTo(2);
            all.addAll(page.objects());
            continuation = page.continuation();
        } while (continuation != null);
        assertThat(all)
                .extracting(ObjectInfo::key, ObjectInfo::size)
                .containsExactly(
                        tuple("m/a", 10L), tuple("m/b", 12L), tuple("m/c", 4L), tuple("m/d/e", 12L), tuple("m/f", 0L));
        assertThat(string(await(store.get("m/f")))).isEmpty();
        assertThat(await(store.head("m/g"))).isEmpty();
        failure(store.get("m/g"), ObjectNotFoundException.class);
    }

    @Test
    void deletingAnUrsaObjectDeletesItsSidecar() throws IOException {
        Path file = ursaFile("d/x/ursa", bytes("to be deleted"));
        await(store.put("d/keep", utf8("kept")));
        await(store.delete(List.of("d/x/ursa")));
        assertThat(file).doesNotExist();
        assertThat(file.resolveSibling("ursa.crc32c")).doesNotExist();
        assertThat(store.root().resolve("d/x")).doesNotExist(); // the emptied directory goes too
        assertThat(await(store.head("d/x/ursa"))).isEmpty();

        // An orphaned sidecar goes with a delete of its key.
        Files.writeString(store.root().resolve("d/orphan.crc32c"), "0");
        await(store.delete(List.of("d/orphan", "d/keep")));
        assertThat(store.root()).isEmptyDirectory();
    }

    @Test
    void keysThatCouldCollideWithSidecarsAreRefused() {
        for (String key : List.of("a/b.crc32c", "b.crc32c", "a.crc32c/b", "a/B.CRC32C")) {
            InvalidObjectKeyException e = failure(store.put(key, utf8("x")), InvalidObjectKeyException.class);
            assertThat(e.getMessage()).as(key).contains(key).contains(".crc32c");
            failure(store.putIfAbsent(key, utf8("x")), InvalidObjectKeyException.class);
            failure(store.get(key), InvalidObjectKeyException.class);
            failure(store.head(key), InvalidObjectKeyException.class);
            failure(store.delete(List.of(key)), InvalidObjectKeyException.class);
        }
        // Only the suffix: a key with .crc32c inside a segment is fine.
        await(store.put("a/b.crc32c.x", utf8("x")));
        await(store.put("a/x.crc32", utf8("x")));
        assertThat(await(store.list("a/", null, 10)).objects())
                .extracting(ObjectInfo::key)
                .containsExactly("a/b.crc32c.x", "a/x.crc32");
    }

    @Test
    void aPutOverAnUrsaObjectReplacesItAndItsSidecar() throws IOException {
        Path file = ursaFile("o/k", bytes("Ursa's version"));
        await(store.put("o/k", utf8("ours")));
        assertThat(string(await(store.get("o/k")))).isEqualTo("ours");
        assertThat(await(store.head("o/k")).orElseThrow().size()).isEqualTo(4);
        assertThat(file.resolveSibling("k.crc32c")).doesNotExist();
    }

    @Test
    void putIfAbsentKeepsAnUrsaObjectButNotAnOrphanedSidecar() throws IOException {
        Path file = ursaFile("i/ursa", bytes("Ursa's"));
        failure(store.putIfAbsent("i/ursa", utf8("ours")), ObjectAlreadyExistsException.class);
        assertThat(string(await(store.get("i/ursa")))).isEqualTo("Ursa's");
        assertThat(file.resolveSibling("ursa.crc32c")).exists();

        // The sidecar of an object no longer there must not be taken for the new object's checksum.
        Files.writeString(store.root().resolve("i/new.crc32c"), "12345");
        await(store.putIfAbsent("i/new", utf8("ours")));
        assertThat(string(await(store.get("i/new")))).isEqualTo("ours");
        assertThat(store.root().resolve("i/new.crc32c")).doesNotExist();
        // Same for a put.
        Files.writeString(store.root().resolve("i/new2.crc32c"), "12345");
        await(store.put("i/new2", utf8("ours")));
        assertThat(string(await(store.get("i/new2")))).isEqualTo("ours");
    }
}
