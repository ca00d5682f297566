package dev.lakestream.core.objectstore.fs;

import static dev.lakestream.core.objectstore.ObjectStoreTestSupport.await;
import static dev.lakestream.core.objectstore.ObjectStoreTestSupport.failure;
import static dev.lakestream.core.objectstore.ObjectStoreTestSupport.string;
import static dev.lakestream.core.objectstore.ObjectStoreTestSupport.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lakestream.core.objectstore.BucketNotFoundException;
import dev.lakestream.core.objectstore.InvalidObjectKeyException;
import dev.lakestream.core.objectstore.ObjectAlreadyExistsException;
import dev.lakestream.core.objectstore.ObjectCorruptedException;
import dev.lakestream.core.objectstore.ObjectNotFoundException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** What only the filesystem store does: its file layout, its checksum trailer, its root directory. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FileSystemObjectStoreTest {

    @TempDir
    Path dir;

    private final List<FileSystemObjectStore> stores = new ArrayList<>();

    @AfterEach
    void close() {
        stores.forEach(FileSystemObjectStore::close);
    }

    private FileSystemObjectStore open(FileSystemObjectStoreConfig config) {
        FileSystemObjectStore store = new FileSystemObjectStore(config);
        stores.add(store);
        return store;
    }

    private FileSystemObjectStore open() {
        return open(FileSystemObjectStoreConfig.of(dir.resolve("root")));
    }

    @Test
    void theFileHoldsTheBytesAndAChecksumTrailer() throws IOException {
        FileSystemObjectStore store = open();
        await(store.put("a/b", utf8("123456789")));
        byte[] file = Files.readAllBytes(dir.resolve("root/a/b"));
        assertThat(file).hasSize(9 + 8);
        ByteBuffer trailer = ByteBuffer.wrap(file, 9, 8);
        assertThat(trailer.getInt()).isEqualTo(0xE3069283); // CRC32C("123456789")
        assertThat(trailer.getInt()).isEqualTo(FileSystemObjectStore.TRAILER_MAGIC);
        assertThat(await(store.head("a/b")).orElseThrow().size()).isEqualTo(9);
    }

    @Test
    void anAlteredFileIsCorrupted() throws IOException {
        FileSystemObjectStore store = open();
        await(store.put("seg/1", utf8("the original content")));
        try (FileChannel ch = FileChannel.open(store.pathOf("seg/1"), StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(new byte[] {'T'}), 0);
        }
        ObjectCorruptedException e = failure(store.get("seg/1"), ObjectCorruptedException.class);
        assertThat(e.getMessage()).contains("'seg/1'").contains(store.root().toString());
        // Ranged reads are not verified.
        assertThat(string(await(store.get("seg/1", 0, 3)))).isEqualTo("The");
    }

    @Test
    void aTruncatedFileIsCorrupted() throws IOException {
        FileSystemObjectStore store = open();
        await(store.put("seg/2", utf8("some content that gets cut")));
        try (FileChannel ch = FileChannel.open(store.pathOf("seg/2"), StandardOpenOption.WRITE)) {
            ch.truncate(10);
        }
        assertThat(failure(store.get("seg/2"), ObjectCorruptedException.class).getMessage())
                .contains("'seg/2'");
        try (FileChannel ch = FileChannel.open(store.pathOf("seg/2"), StandardOpenOption.WRITE)) {
            ch.truncate(3);
        }
        failure(store.get("seg/2"), ObjectCorruptedException.class);
        failure(store.head("seg/2"), ObjectCorruptedException.class);
    }

    @Test
    void aForeignFileIsCorrupted() throws IOException {
        FileSystemObjectStore store = open();
        Files.createDirectories(store.root().resolve("foreign"));
        Files.writeString(store.root().resolve("foreign/file"), "written by someone else");
        assertThat(failure(store.get("foreign/file"), ObjectCorruptedException.class)
                        .getMessage())
                .contains("trailer");
    }

    @Test
    void aMissingRootIsCreatedByDefault() {
        FileSystemObjectStore store = open(FileSystemObjectStoreConfig.of(dir.resolve("new/nested/root")));
        assertThat(dir.resolve("new/nested/root")).isDirectory();
        await(store.put("k", utf8("v")));
    }

    @Test
    void aMissingRootIsBucketNotFoundWhenNotToBeCreated() {
        Path missing = dir.resolve("missing-root");
        assertThatThrownBy(() -> open(FileSystemObjectStoreConfig.of(missing).withCreateRoot(false)))
                .isInstanceOf(BucketNotFoundException.class)
                .hasMessageContaining(missing.toString())
                .hasMessageContaining(FileSystemObjectStoreConfig.CREATE_ROOT);
        assertThat(missing).doesNotExist();
    }

    @Test
    void aRootRemovedUnderTheStoreIsBucketNotFoundAndNotRecreated() throws IOException {
        FileSystemObjectStore store = open();
        await(store.put("a/b", utf8("v")));
        Files.delete(store.root().resolve("a/b"));
        Files.delete(store.root().resolve("a"));
        Files.delete(store.root());
        failure(store.put("a/c", utf8("v")), BucketNotFoundException.class);
        failure(store.get("a/c"), BucketNotFoundException.class);
        failure(store.head("a/c"), BucketNotFoundException.class);
        failure(store.list("", null, 10), BucketNotFoundException.class);
        failure(store.delete(List.of("a/c")), BucketNotFoundException.class);
        assertThat(store.root()).doesNotExist();
    }

    @Test
    void deleteRemovesEmptiedDirectories() {
        FileSystemObjectStore store = open();
        await(store.put("x/y/z/1", utf8("1")));
        await(store.put("x/keep", utf8("k")));
        await(store.delete(List.of("x/y/z/1")));
        assertThat(store.root().resolve("x/y")).doesNotExist();
        assertThat(store.root().resolve("x/keep")).exists();
        await(store.delete(List.of("x/keep")));
        assertThat(store.root()).isEmptyDirectory();
    }

    @Test
    void temporaryFilesAreNotListedAndTheirNamesAreReserved() throws IOException {
        FileSystemObjectStore store = open();
        await(store.put("t/real", utf8("1")));
        Files.writeString(store.root().resolve("t/.lakestream-tmp-leftover"), "crash debris");
        assertThat(await(store.list("t/", null, 10)).objects())
                .extracting(o -> o.key())
                .containsExactly("t/real");
        failure(store.put("t/.lakestream-tmp-x", utf8("x")), InvalidObjectKeyException.class);
        failure(store.put("t/" + "s".repeat(256), utf8("x")), InvalidObjectKeyException.class);
    }

    @Test
    void anObjectCannotAlsoBeADirectoryOfObjects() {
        FileSystemObjectStore store = open();
        await(store.put("p/q", utf8("object")));
        assertThat(failure(store.put("p/q/r", utf8("below an object")), InvalidObjectKeyException.class)
                        .getMessage())
                .contains("'p/q/r'");
        await(store.put("d/e", utf8("x")));
        failure(store.put("d", utf8("over a directory")), InvalidObjectKeyException.class);
        failure(store.putIfAbsent("d", utf8("over a directory")), InvalidObjectKeyException.class);
        failure(store.get("d"), ObjectNotFoundException.class);
        assertThat(await(store.head("d"))).isEmpty();
        failure(store.get("p/q/r"), ObjectNotFoundException.class);
        assertThat(await(store.head("p/q/r"))).isEmpty();
    }

    @Test
    void listOrderIsUtf8EvenWhereUtf16Differs() {
        FileSystemObjectStore store = open();
        for (String k : List.of("u/\uFFFD", "u/\uD83D\uDE00", "u/\uE000", "u/z")) {
            await(store.put(k, utf8(k)));
        }
        assertThat(await(store.list("u/", null, 10)).objects())
                .extracting(o -> o.key())
                .containsExactly("u/z", "u/\uE000", "u/\uFFFD", "u/\uD83D\uDE00");
    }

    @Test
    void futuresCompleteOnTheIoThreads() {
        FileSystemObjectStore store =
                open(FileSystemObjectStoreConfig.of(dir.resolve("root")).withIoThreads(2));
        // A stage attached to a future that is already complete runs on the attaching thread, so only puts still in
        // flight when put returned say where futures complete; a few tries give one.
        int seen = 0;
        for (int i = 0; i < 200 && seen < 3; i++) {
            CompletableFuture<Void> put = store.put("t" + i, utf8("x"));
            if (put.isDone()) {
                continue;
            }
            CompletableFuture<String> thread =
                    put.thenApply(v -> Thread.currentThread().getName());
            if (!put.isDone() || !thread.isDone()) {
                assertThat(await(thread)).startsWith("lakestream-fs-io-");
                seen++;
            }
        }
        assertThat(seen).as("puts still in flight when attached to").isPositive();
    }

    @Test
    @SuppressWarnings("FutureReturnValueIgnored") // false positive: each Future<CompletableFuture> is awaited below
    void putIfAbsentIsAtomicAcrossStoresOnTheSameRoot() throws Exception {
        // Two stores (as two processes would) race on the same keys.
        FileSystemObjectStore one = open();
        FileSystemObjectStore two = open(FileSystemObjectStoreConfig.of(dir.resolve("root")));
        ExecutorService threads = Executors.newFixedThreadPool(8);
        try {
            for (int round = 0; round < 10; round++) {
                String key = "shared/" + round;
                CountDownLatch start = new CountDownLatch(1);
                List<Future<CompletableFuture<Void>>> calls = new ArrayList<>();
                for (int w = 0; w < 8; w++) {
                    FileSystemObjectStore s = w % 2 == 0 ? one : two;
                    ByteBuffer data = utf8("writer " + w);
                    calls.add(threads.submit(() -> {
                        start.await();
                        return s.putIfAbsent(key, data);
                    }));
                }
                start.countDown();
                int winners = 0;
                for (Future<CompletableFuture<Void>> call : calls) {
                    try {
                        call.get().get(10, TimeUnit.SECONDS);
                        winners++;
                    } catch (ExecutionException e) {
                        assertThat(e.getCause()).isInstanceOf(ObjectAlreadyExistsException.class);
                    }
                }
                assertThat(winners).isEqualTo(1);
            }
        } finally {
            threads.shutdownNow();
        }
        try (var files = Files.walk(dir.resolve("root"))) {
            assertThat(files.filter(p -> p.getFileName().toString().startsWith(".lakestream-")))
                    .isEmpty();
        }
    }

    @Test
    void fsyncCanBeTurnedOff() {
        FileSystemObjectStore store =
                open(FileSystemObjectStoreConfig.of(dir.resolve("root")).withFsync(false));
        await(store.put("nofsync/k", utf8("v")));
        assertThat(string(await(store.get("nofsync/k")))).isEqualTo("v");
    }
}
