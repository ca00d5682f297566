package dev.lakestream.core.objectstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The behaviour every {@link ObjectStore} shares. A subclass supplies a fresh, empty store for each test
 * (and closes nothing itself: the store is closed after each test).
 *
 * <p>Keys never pair an object {@code a} with an object {@code a/b}: the filesystem store (and S3Proxy's
 * filesystem backend) cannot hold both.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class ObjectStoreConformanceTest {

    protected static final Duration WAIT = Duration.ofSeconds(60);

    protected ObjectStore store;

    /** A new store over an empty bucket or directory. */
    protected abstract ObjectStore createStore() throws Exception;

    @BeforeEach
    void openStore() throws Exception {
        store = createStore();
    }

    @AfterEach
    void closeStore() {
        if (store != null) {
            store.close();
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Round trips

    @Test
    void putThenGetReturnsTheBytes() {
        await(store.put("a/b/object-1", utf8("hello, lakestream")));
        assertThat(string(await(store.get("a/b/object-1")))).isEqualTo("hello, lakestream");
    }

    @Test
    void aBodyOfSeveralBuffersIsStoredAsTheirConcatenationAndReadIntoBuffersOfAnAllocator() {
        // Heap and direct parts, one empty, more of them than a gathering write takes at once (IOV_MAX is 1024).
        List<ByteBuffer> parts = new ArrayList<>();
        StringBuilder expected = new StringBuilder();
        for (int i = 0; i < 1500; i++) {
            String text = "part-" + i + ";";
            ByteBuffer b = i % 2 == 0 ? ByteBuffer.allocateDirect(text.length()) : ByteBuffer.allocate(text.length());
            b.put(text.getBytes(StandardCharsets.UTF_8)).flip();
            parts.add(b);
            expected.append(text);
            if (i == 7) {
                parts.add(ByteBuffer.allocate(0));
            }
        }
        ObjectBody body = ObjectBody.of(parts.toArray(ByteBuffer[]::new));
        await(store.put("gathered/object", body));
        assertThat(parts).allSatisfy(p -> assertThat(p.position()).isZero());
        assertThat(string(await(store.get("gathered/object")))).isEqualTo(expected.toString());

        ByteBuf whole = await(store.get("gathered/object", PooledByteBufAllocator.DEFAULT));
        ByteBuf range = await(store.get("gathered/object", 5, 10, PooledByteBufAllocator.DEFAULT));
        try {
            assertThat(whole.toString(StandardCharsets.UTF_8)).isEqualTo(expected.toString());
            assertThat(range.toString(StandardCharsets.UTF_8)).isEqualTo(expected.substring(5, 15));
            assertThat(whole.refCnt()).isEqualTo(1);
        } finally {
            whole.release();
            range.release();
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Streams

    @Test
    void aStreamReadsItsRangeInTheStepsAskedForAsRangedGetsDo() {
        byte[] bytes = randomBytes(3 << 20, 7);
        await(store.put("streamed", ByteBuffer.wrap(bytes)));
        long from = 1000;
        long length = (2 << 20) + 7;
        ObjectStream s = await(store.openStream("streamed", from, length));
        assertThat(s.position()).isEqualTo(from);
        assertThat(s.end()).isEqualTo(from + length);
        java.io.ByteArrayOutputStream got = new java.io.ByteArrayOutputStream();
        int[] steps = {100_000, 1, 777_777, 65_536, 3, 1 << 20};
        for (int i = 0; got.size() < length; i++) {
            ByteBuffer b = await(s.read(steps[i % steps.length]));
            assertThat(b.remaining()).isEqualTo((int) Math.min(steps[i % steps.length], length - got.size()));
            got.writeBytes(array(b));
            assertThat(s.position()).isEqualTo(from + got.size());
        }
        assertThat(got.toByteArray()).isEqualTo(java.util.Arrays.copyOfRange(bytes, (int) from, (int) (from + length)));
        assertThat(await(s.read(10)).remaining()).isZero();
        assertThat(s.isOpen()).isFalse();
        s.close();
    }

    @Test
    void aStreamPastTheObjectsEndIsCutThere() {
        await(store.put("short", utf8("0123456789")));
        ObjectStream s = await(store.openStream("short", 4, 1000));
        assertThat(string(await(s.read(1000)))).isEqualTo("456789");
        assertThat(await(s.read(1)).remaining()).isZero();
        s.close();
    }

    @Test
    void aStreamOfAMissingObjectOrPastTheEndFailsAsAGetDoes() {
        await(store.put("short", utf8("0123456789")));
        failure(store.openStream("missing", 0, 10).thenCompose(s -> s.read(10)), ObjectNotFoundException.class);
        failure(store.openStream("short", 10, 10).thenCompose(s -> s.read(10)), InvalidRangeException.class);
    }

    @Test
    void aClosedStreamsReadsFailNamingTheObject() {
        await(store.put("short", utf8("0123456789")));
        ObjectStream s = await(store.openStream("short", 0, 10));
        assertThat(string(await(s.read(3)))).isEqualTo("012");
        s.close();
        assertThat(s.isOpen()).isFalse();
        ObjectStoreException e = failure(s.read(3), ObjectStoreException.class);
        assertThat(e).hasMessageContaining("short").hasMessageContaining("position 3");
    }

    @Test
    void putReplacesAnExistingObject() {
        await(store.put("k", utf8("first version, longer")));
        await(store.put("k", utf8("second")));
        assertThat(string(await(store.get("k")))).isEqualTo("second");
        assertThat(await(store.head("k")))
                .hasValueSatisfying(info -> assertThat(info.size()).isEqualTo(6));
    }

    @Test
    void emptyObject() {
        await(store.put("empty", ByteBuffer.allocate(0)));
        assertThat(await(store.get("empty")).remaining()).isZero();
        assertThat(await(store.head("empty")))
                .hasValueSatisfying(info -> assertThat(info.size()).isZero());
        assertThat(keys(await(store.list("", null, 10)))).containsExactly("empty");
    }

    @Test
    void largeObject() {
        byte[] data = randomBytes(16 << 20, 1);
        await(store.put("large/16MiB", ByteBuffer.wrap(data)));
        assertThat(array(await(store.get("large/16MiB")))).isEqualTo(data);
        assertThat(array(await(store.get("large/16MiB", 10_000_000, 1000))))
                .isEqualTo(java.util.Arrays.copyOfRange(data, 10_000_000, 10_001_000));
        assertThat(await(store.head("large/16MiB")).orElseThrow().size()).isEqualTo(16 << 20);
    }

    @Test
    void binaryContentWithEveryByteValue() {
        byte[] data = new byte[256 * 4];
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) i;
        }
        await(store.put("binary", ByteBuffer.wrap(data)));
        assertThat(array(await(store.get("binary")))).isEqualTo(data);
    }

    @Test
    void putReadsFromPositionToLimitAndLeavesTheBufferAlone() {
        ByteBuffer buffer = utf8("xxPAYLOADyy");
        buffer.position(2).limit(9);
        await(store.put("sliced", buffer));
        assertThat(buffer.position()).isEqualTo(2);
        assertThat(buffer.limit()).isEqualTo(9);
        assertThat(string(await(store.get("sliced")))).isEqualTo("PAYLOAD");

        ByteBuffer direct = ByteBuffer.allocateDirect(5)
                .put("ABCDE".getBytes(StandardCharsets.US_ASCII))
                .flip();
        await(store.putIfAbsent("direct", direct));
        assertThat(direct.remaining()).isEqualTo(5);
        assertThat(string(await(store.get("direct")))).isEqualTo("ABCDE");
    }

    @Test
    void keysWithSlashes() {
        List<String> keys = List.of(
                "ledgers/1/entries/0000", "ledgers/1/entries/0001", "ledgers/2/entries/0000", "ledgers/10/index");
        for (String k : keys) {
            await(store.put(k, utf8(k)));
        }
        for (String k : keys) {
            assertThat(string(await(store.get(k)))).isEqualTo(k);
        }
        assertThat(keys(await(store.list("ledgers/1/", null, 100))))
                .containsExactly("ledgers/1/entries/0000", "ledgers/1/entries/0001");
        assertThat(keys(await(store.list("ledgers/1", null, 100))))
                .containsExactly("ledgers/1/entries/0000", "ledgers/1/entries/0001", "ledgers/10/index");
    }

    @Test
    void unicodeKeys() {
        List<String> keys = List.of("ünïcødé/straße", "日本語/キー", "emoji/\uD83D\uDE00-grinning", "mixed/Ωμέγα b+c=d");
        for (String k : keys) {
            await(store.put(k, utf8("value of " + k)));
        }
        for (String k : keys) {
            assertThat(string(await(store.get(k)))).isEqualTo("value of " + k);
            assertThat(await(store.head(k)))
                    .hasValueSatisfying(i -> assertThat(i.key()).isEqualTo(k));
        }
        assertThat(keys(listAll("", 1000))).containsExactlyInAnyOrderElementsOf(keys);
        assertThat(keys(await(store.list("日本語/", null, 10)))).containsExactly("日本語/キー");
    }

    @Test
    void longestKey() {
        // 5 segments of 200 bytes and 4 slashes: 1004 bytes, within every store's limits.
        String segment = "s".repeat(200);
        String key = String.join("/", segment, segment, segment, segment, segment);
        await(store.put(key, utf8("long")));
        assertThat(string(await(store.get(key)))).isEqualTo("long");
    }

    // ---------------------------------------------------------------------------------------------
    // Ranges

    @Test
    void rangeGets() {
        byte[] data = "0123456789abcdefghij".getBytes(StandardCharsets.US_ASCII);
        await(store.put("range", ByteBuffer.wrap(data)));
        assertThat(string(await(store.get("range", 0, 4)))).isEqualTo("0123");
        assertThat(string(await(store.get("range", 8, 5)))).isEqualTo("89abc");
        assertThat(string(await(store.get("range", 15, 5)))).isEqualTo("fghij");
        assertThat(string(await(store.get("range", 19, 1)))).isEqualTo("j");
        assertThat(string(await(store.get("range", 0, 20)))).isEqualTo("0123456789abcdefghij");
        // Past the end: cut at the end.
        assertThat(string(await(store.get("range", 16, 100)))).isEqualTo("ghij");
        assertThat(string(await(store.get("range", 0, Long.MAX_VALUE)))).isEqualTo("0123456789abcdefghij");
    }

    @Test
    void rangeStartingAtOrPastTheEndFails() {
        await(store.put("range", utf8("0123456789")));
        assertThat(failure(store.get("range", 10, 1), InvalidRangeException.class)
                        .getMessage())
                .contains("range")
                .contains("10");
        failure(store.get("range", 11, 5), InvalidRangeException.class);
        await(store.put("empty", ByteBuffer.allocate(0)));
        failure(store.get("empty", 0, 1), InvalidRangeException.class);
    }

    @Test
    void rangeOfMissingObjectFails() {
        assertThat(failure(store.get("missing/range", 0, 10), ObjectNotFoundException.class)
                        .getMessage())
                .contains("missing/range");
    }

    @Test
    void rangeArgumentsAreChecked() {
        await(store.put("range", utf8("0123456789")));
        failure(store.get("range", -1, 1), IllegalArgumentException.class);
        failure(store.get("range", 0, 0), IllegalArgumentException.class);
    }

    // ---------------------------------------------------------------------------------------------
    // Head

    @Test
    void headOfPresentAndMissingObjects() {
        Instant before = Instant.now().minusSeconds(120);
        await(store.put("dir/present", utf8("12345")));
        Optional<ObjectInfo> info = await(store.head("dir/present"));
        assertThat(info).isPresent();
        assertThat(info.get().key()).isEqualTo("dir/present");
        assertThat(info.get().size()).isEqualTo(5);
        assertThat(info.get().lastModified())
                .isAfter(before)
                .isBefore(Instant.now().plusSeconds(120));
        assertThat(await(store.head("dir/missing"))).isEmpty();
        assertThat(await(store.head("nodir/missing"))).isEmpty();
    }

    @Test
    void getOfMissingObjectNamesTheKey() {
        ObjectNotFoundException e = failure(store.get("no/such/object"), ObjectNotFoundException.class);
        assertThat(e.getMessage()).contains("no/such/object");
        assertThat(e.isRetryable()).isFalse();
    }

    // ---------------------------------------------------------------------------------------------
    // Listing

    @Test
    void listPagesThroughManyKeysInOrder() {
        List<String> expected = new ArrayList<>();
        List<CompletableFuture<Void>> puts = new ArrayList<>();
        for (int i = 0; i < 2500; i++) {
            String key = String.format("paged/%05d", i);
            expected.add(key);
            puts.add(store.put(key, ByteBuffer.wrap(new byte[i % 7])));
        }
        for (int i = 0; i < 5; i++) {
            puts.add(store.put("other/" + i, utf8("x")));
        }
        puts.add(store.put("pagedX", utf8("not under paged/")));
        await(CompletableFuture.allOf(puts.toArray(CompletableFuture[]::new)));

        ObjectListing first = await(store.list("paged/", null, 1000));
        assertThat(first.objects()).hasSize(1000);
        assertThat(first.hasMore()).isTrue();
        ObjectListing second = await(store.list("paged/", first.continuation(), 1000));
        assertThat(second.objects()).hasSize(1000);
        assertThat(second.hasMore()).isTrue();
        ObjectListing third = await(store.list("paged/", second.continuation(), 1000));
        assertThat(third.objects()).hasSize(500);
        assertThat(third.hasMore()).isFalse();
        assertThat(third.continuation()).isNull();

        List<String> all = new ArrayList<>();
        all.addAll(keys(first));
        all.addAll(keys(second));
        all.addAll(keys(third));
        assertThat(all).containsExactlyElementsOf(expected);
        assertThat(third.objects().get(499)).satisfies(o -> {
            assertThat(o.key()).isEqualTo("paged/02499");
            assertThat(o.size()).isEqualTo(2499 % 7);
        });
    }

    @Test
    void listSmallPages() {
        for (int i = 0; i < 7; i++) {
            await(store.put("small/" + i, utf8("v" + i)));
        }
        List<List<String>> pages = new ArrayList<>();
        String token = null;
        do {
            ObjectListing page = await(store.list("small/", token, 3));
            pages.add(keys(page));
            token = page.continuation();
        } while (token != null);
        assertThat(pages).hasSizeBetween(3, 4); // a store may end with an empty page
        assertThat(pages.stream().flatMap(List::stream).toList())
                .containsExactly("small/0", "small/1", "small/2", "small/3", "small/4", "small/5", "small/6");
    }

    @Test
    void listIsInUtf8ByteOrder() {
        // UTF-8 byte order; these keys sort the same in UTF-16 order, which some S3-compatible stores use.
        List<String> keys = new ArrayList<>(List.of(
                "ord/B",
                "ord/a",
                "ord/a b",
                "ord/a-b",
                "ord/a.b",
                "ord/b",
                "ord/z",
                "ord/é",
                "ord/日本",
                "ord/\uD83D\uDE00",
                "ord/0",
                "ord/_"));
        Collections.shuffle(keys, new Random(7));
        for (String k : keys) {
            await(store.put(k, utf8(k)));
        }
        List<String> listed = keys(await(store.list("ord/", null, 100)));
        List<String> expected = new ArrayList<>(keys);
        expected.sort(ObjectStoreConformanceTest::compareUtf8Bytes);
        assertThat(listed).containsExactlyElementsOf(expected);
    }

    @Test
    void listOfEmptyStoreAndUnmatchedPrefix() {
        ObjectListing empty = await(store.list("", null, 1000));
        assertThat(empty.objects()).isEmpty();
        assertThat(empty.hasMore()).isFalse();
        await(store.put("present/1", utf8("1")));
        assertThat(await(store.list("absent/", null, 10)).objects()).isEmpty();
        assertThat(await(store.list("present/1/", null, 10)).objects()).isEmpty();
        assertThat(keys(await(store.list("pres", null, 10)))).containsExactly("present/1");
        assertThat(keys(await(store.list("", null, 10)))).containsExactly("present/1");
    }

    @Test
    void listReportsSizesAndTimes() {
        await(store.put("sizes/a", ByteBuffer.allocate(3)));
        await(store.put("sizes/b", ByteBuffer.allocate(1234)));
        List<ObjectInfo> objects = await(store.list("sizes/", null, 10)).objects();
        assertThat(objects).extracting(ObjectInfo::size).containsExactly(3L, 1234L);
        assertThat(objects).allSatisfy(o -> assertThat(o.lastModified()).isNotNull());
    }

    @Test
    void listArgumentsAreChecked() {
        failure(store.list("", null, 0), IllegalArgumentException.class);
        failure(store.list("", null, 1001), IllegalArgumentException.class);
        failure(store.list("bad\u0000prefix", null, 10), InvalidObjectKeyException.class);
    }

    // ---------------------------------------------------------------------------------------------
    // Delete

    @Test
    void deleteRemovesObjectsAndIgnoresMissingKeys() {
        await(store.put("del/1", utf8("1")));
        await(store.put("del/2", utf8("2")));
        await(store.put("keep/1", utf8("k")));
        await(store.delete(List.of("del/1", "del/2", "del/never-existed", "other/never")));
        assertThat(await(store.head("del/1"))).isEmpty();
        assertThat(await(store.head("del/2"))).isEmpty();
        failure(store.get("del/1"), ObjectNotFoundException.class);
        assertThat(keys(listAll("", 1000))).containsExactly("keep/1");
        await(store.delete(List.of()));
        await(store.delete(List.of("del/1")));
        // The key can be written again after a delete.
        await(store.putIfAbsent("del/1", utf8("again")));
        assertThat(string(await(store.get("del/1")))).isEqualTo("again");
    }

    @Test
    void deleteMoreThanOneBatch() {
        List<String> keys = IntStream.range(0, 1100)
                .mapToObj(i -> String.format("batch/%04d", i))
                .toList();
        await(CompletableFuture.allOf(
                keys.stream().map(k -> store.put(k, utf8(k))).toArray(CompletableFuture[]::new)));
        await(store.put("survivor", utf8("s")));
        List<String> toDelete = new ArrayList<>(keys);
        toDelete.add("batch/missing-1");
        toDelete.add("batch/missing-2");
        await(store.delete(toDelete));
        assertThat(keys(listAll("", 1000))).containsExactly("survivor");
    }

    // ---------------------------------------------------------------------------------------------
    // Conditional create

    @Test
    void putIfAbsentCreatesOnceThenFails() {
        await(store.putIfAbsent("cond/key", utf8("first")));
        ObjectAlreadyExistsException e =
                failure(store.putIfAbsent("cond/key", utf8("second")), ObjectAlreadyExistsException.class);
        assertThat(e.getMessage()).contains("cond/key");
        assertThat(string(await(store.get("cond/key")))).isEqualTo("first");
        // A plain put still replaces it.
        await(store.put("cond/key", utf8("third")));
        assertThat(string(await(store.get("cond/key")))).isEqualTo("third");
    }

    @Test
    @SuppressWarnings("FutureReturnValueIgnored") // false positive: each Future<CompletableFuture> is awaited below
    void racingPutIfAbsentHasExactlyOneWinner() throws Exception {
        int writers = 8;
        ExecutorService threads = Executors.newFixedThreadPool(writers);
        try {
            for (int round = 0; round < 5; round++) {
                String key = "race/round-" + round;
                CountDownLatch start = new CountDownLatch(1);
                List<Future<CompletableFuture<Void>>> calls = new ArrayList<>();
                for (int w = 0; w < writers; w++) {
                    ByteBuffer data = utf8("writer-" + w);
                    calls.add(threads.submit(() -> {
                        start.await();
                        return store.putIfAbsent(key, data);
                    }));
                }
                start.countDown();
                List<Integer> winners = new ArrayList<>();
                for (int w = 0; w < writers; w++) {
                    CompletableFuture<Void> f = calls.get(w).get(WAIT.toSeconds(), TimeUnit.SECONDS);
                    try {
                        f.get(WAIT.toSeconds(), TimeUnit.SECONDS);
                        winners.add(w);
                    } catch (ExecutionException e) {
                        assertThat(e.getCause()).isInstanceOf(ObjectAlreadyExistsException.class);
                    }
                }
                assertThat(winners).as("winners of round %d", round).hasSize(1);
                assertThat(string(await(store.get(key)))).isEqualTo("writer-" + winners.get(0));
            }
        } finally {
            threads.shutdownNow();
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Concurrency

    @Test
    void manyConcurrentPutsAndGets() {
        int n = 200;
        List<CompletableFuture<Void>> puts = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            puts.add(store.put("conc/" + i, ByteBuffer.wrap(randomBytes(4096, i))));
        }
        await(CompletableFuture.allOf(puts.toArray(CompletableFuture[]::new)));
        List<CompletableFuture<ByteBuffer>> gets = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            gets.add(i % 2 == 0 ? store.get("conc/" + i) : store.get("conc/" + i, 100, 50));
        }
        for (int i = 0; i < n; i++) {
            byte[] expected = randomBytes(4096, i);
            byte[] actual = array(await(gets.get(i)));
            assertThat(actual).isEqualTo(i % 2 == 0 ? expected : java.util.Arrays.copyOfRange(expected, 100, 150));
        }
    }

    @Test
    void concurrentOverwritesLeaveOneWholeVersion() {
        List<CompletableFuture<Void>> puts = new ArrayList<>();
        Set<String> versions = new HashSet<>();
        for (int i = 0; i < 20; i++) {
            String v = ("version-" + i + "-").repeat(1000);
            versions.add(v);
            puts.add(store.put("contended", utf8(v)));
        }
        await(CompletableFuture.allOf(puts.toArray(CompletableFuture[]::new)));
        assertThat(versions).contains(string(await(store.get("contended"))));
    }

    // ---------------------------------------------------------------------------------------------
    // Invalid keys

    static List<String> invalidKeys() {
        return List.of(
                "",
                "/leading",
                "trailing/",
                "double//slash",
                "./dot",
                "a/./b",
                "a/../b",
                "..",
                "back\\slash",
                "nul\u0000char",
                "new\nline",
                "tab\tchar",
                "del\u007fchar",
                "lone\uD800surrogate",
                "x".repeat(1025),
                "é".repeat(513));
    }

    @ParameterizedTest
    @MethodSource("invalidKeys")
    void invalidKeysFailBeforeAnyRequest(String key) {
        List<CompletableFuture<?>> calls = List.of(
                store.put(key, utf8("x")),
                store.putIfAbsent(key, utf8("x")),
                store.get(key),
                store.get(key, 0, 1),
                store.head(key),
                store.delete(List.of("valid/key", key)));
        for (CompletableFuture<?> call : calls) {
            InvalidObjectKeyException e = failure(call, InvalidObjectKeyException.class);
            assertThat(e.getMessage()).contains(store.location().split(" ", -1)[0]);
        }
    }

    @Test
    void invalidKeyMessageNamesTheKey() {
        assertThat(failure(store.get("a//b"), InvalidObjectKeyException.class).getMessage())
                .contains("'a//b'");
        assertThat(failure(store.get("a\u0001b"), InvalidObjectKeyException.class)
                        .getMessage())
                .contains("a\\u0001b");
    }

    // ---------------------------------------------------------------------------------------------
    // Close

    @Test
    void operationsFailAfterClose() {
        await(store.put("before-close", utf8("x")));
        assertThat(store.location()).isNotBlank();
        store.close();
        store.close(); // idempotent
        failure(store.put("after-close", utf8("x")), ObjectStoreException.class);
        failure(store.get("before-close"), ObjectStoreException.class);
        failure(store.list("", null, 10), ObjectStoreException.class);
        store = null;
    }

    // ---------------------------------------------------------------------------------------------
    // Helpers

    /** Waits for {@code f}; a failure is rethrown as its cause (an {@link ObjectStoreException} as is). */
    protected static <T> T await(CompletableFuture<T> f) {
        try {
            return f.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException re) {
                throw re;
            }
            throw new CompletionException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        } catch (TimeoutException e) {
            throw new AssertionError("not complete within " + WAIT, e);
        }
    }

    /** Waits for {@code f} to fail and returns its cause, asserting its type. */
    protected static <E extends Throwable> E failure(CompletableFuture<?> f, Class<E> type) {
        try {
            Object value = f.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            return fail("expected %s but the call succeeded with %s", type.getSimpleName(), value);
        } catch (ExecutionException e) {
            Throwable cause = RetryPolicy.unwrap(e);
            assertThat(cause).isInstanceOf(type);
            return type.cast(cause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        } catch (TimeoutException e) {
            throw new AssertionError("not complete within " + WAIT, e);
        }
    }

    protected static void assertFailsWith(CompletableFuture<?> f, Class<? extends Throwable> type) {
        assertThatThrownBy(() -> f.get(WAIT.toMillis(), TimeUnit.MILLISECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOf(type);
    }

    protected List<ObjectInfo> listAll(String prefix, int pageSize) {
        List<ObjectInfo> all = new ArrayList<>();
        String token = null;
        do {
            ObjectListing page = await(store.list(prefix, token, pageSize));
            all.addAll(page.objects());
            token = page.continuation();
        } while (token != null);
        return all;
    }

    protected static List<String> keys(ObjectListing listing) {
        return keys(listing.objects());
    }

    protected static List<String> keys(List<ObjectInfo> objects) {
        return objects.stream().map(ObjectInfo::key).toList();
    }

    protected static ByteBuffer utf8(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    protected static String string(ByteBuffer b) {
        return StandardCharsets.UTF_8.decode(b.duplicate()).toString();
    }

    protected static byte[] array(ByteBuffer b) {
        ByteBuffer d = b.duplicate();
        byte[] out = new byte[d.remaining()];
        d.get(out);
        return out;
    }

    protected static byte[] randomBytes(int n, long seed) {
        byte[] out = new byte[n];
        new Random(seed).nextBytes(out);
        return out;
    }

    static int compareUtf8Bytes(String a, String b) {
        return java.util.Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
    }
}
