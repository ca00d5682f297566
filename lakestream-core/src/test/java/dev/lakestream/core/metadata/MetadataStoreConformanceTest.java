package dev.lakestream.core.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * The contract of {@link MetadataStore}, run against every implementation. Each test starts on an empty store
 * (the fixture wipes it) and uses its own key prefix {@link #p}, so expectations are exact.
 *
 * <p>The expected key orders are those observed on a real Oxia server (see {@link KeyOrder}); both stores must
 * produce them.
 */
public abstract class MetadataStoreConformanceTest {

    /** Long enough for any future on a healthy local store. */
    protected static final Duration TIMEOUT = Duration.ofSeconds(20);
    /** A range end above every key with fewer than 64 slashes. */
    protected static final String END_OF_KEYS = "/".repeat(64);

    private static final AtomicInteger TEST_NUMBER = new AtomicInteger();

    /** The store under test, opened before each test. */
    protected MetadataStore store;
    /** This test's key prefix (no slash). */
    protected String p;

    private final List<MetadataStore> extraStores = new ArrayList<>();

    /** Opens a store (a new client, or a new instance on the same data) of the implementation under test. */
    protected abstract MetadataStore openStore();

    /**
     * Opens another client that shares the data with {@link #store} while both are open (Oxia), or returns
     * empty when an implementation allows only one open instance (embedded).
     */
    protected abstract Optional<MetadataStore> openSecondClient();

    /**
     * Makes the backend restart (closing and reopening the embedded store, restarting the Oxia server) and
     * returns the store to use afterwards.
     */
    protected abstract MetadataStore restartBackend(MetadataStore current) throws Exception;

    @BeforeEach
    void openAndWipe(TestInfo info) {
        p = "ct" + TEST_NUMBER.incrementAndGet() + "-"
                + info.getTestMethod().map(m -> m.getName()).orElse("t");
        store = openStore();
        join(store.deleteRange("", END_OF_KEYS, Optional.empty()));
    }

    @AfterEach
    void closeStores() {
        for (MetadataStore s : extraStores) {
            s.close();
        }
        if (store != null) {
            store.close();
        }
    }

    /** Opens another client, closed after the test; empty when the implementation has only one instance. */
    protected Optional<MetadataStore> second() {
        Optional<MetadataStore> s = openSecondClient();
        s.ifPresent(extraStores::add);
        return s;
    }

    // ================================================================ get / put

    @Test
    void getOfAMissingKeyIsEmpty() {
        assertThat(join(store.get(p + "/missing"))).isEmpty();
    }

    @Test
    void putThenGetReturnsValueAndVersion() {
        long before = System.currentTimeMillis();
        PutResult put = join(store.put(p + "/k", bytes("hello")));
        long after = System.currentTimeMillis();

        assertThat(put.key()).isEqualTo(p + "/k");
        Version v = put.version();
        assertThat(v.versionId()).isGreaterThanOrEqualTo(0);
        assertThat(v.modificationsCount()).isZero();
        assertThat(v.createdTimestamp()).isEqualTo(v.modifiedTimestamp()).isBetween(before - 5_000, after + 5_000);
        assertThat(v.isEphemeral()).isFalse();
        assertThat(v.sessionId()).isEqualTo(Version.NO_SESSION);

        Record r = join(store.get(p + "/k")).orElseThrow();
        assertThat(r.key()).isEqualTo(p + "/k");
        assertThat(r.value()).isEqualTo(bytes("hello"));
        assertThat(r.version()).isEqualTo(v);
    }

    @Test
    void overwriteChangesTheVersionAndCountsModifications() {
        Version v1 = join(store.put(p + "/k", bytes("1"))).version();
        Version v2 = join(store.put(p + "/k", bytes("2"))).version();
        Version other = join(store.put(p + "/other", bytes("x"))).version();

        assertThat(v2.versionId()).isGreaterThan(v1.versionId());
        assertThat(other.versionId()).as("version ids increase across keys").isGreaterThan(v2.versionId());
        assertThat(v2.modificationsCount()).isEqualTo(1);
        assertThat(v2.createdTimestamp()).isEqualTo(v1.createdTimestamp());
        assertThat(v2.modifiedTimestamp()).isGreaterThanOrEqualTo(v1.modifiedTimestamp());
        Record r = join(store.get(p + "/k")).orElseThrow();
        assertThat(r.value()).isEqualTo(bytes("2"));
        assertThat(r.version()).isEqualTo(v2);
    }

    @Test
    void emptyAndLargeValues() {
        join(store.put(p + "/empty", new byte[0]));
        assertThat(join(store.get(p + "/empty")).orElseThrow().value()).isEmpty();

        byte[] big = new byte[1 << 20];
        new Random(42).nextBytes(big);
        join(store.put(p + "/big", big));
        assertThat(join(store.get(p + "/big")).orElseThrow().value()).isEqualTo(big);
        List<Record> scanned = join(store.rangeScan(p + "/", p + "//", Optional.empty(), 0));
        assertThat(scanned).extracting(Record::key).containsExactly(p + "/big", p + "/empty");
        assertThat(scanned.get(0).value()).isEqualTo(big);
    }

    @Test
    void getWithoutValueReturnsTheVersionOnly() {
        Version v = join(store.put(p + "/k", bytes("value"))).version();
        Record r = join(store.get(p + "/k", GetOptions.DEFAULT.withoutValue())).orElseThrow();
        assertThat(r.value()).isEmpty();
        assertThat(r.version()).isEqualTo(v);
    }

    @Test
    void unicodeKeysRoundTripAndSortByUtf8Bytes() {
        // UTF-8 order: é (C3 A9) < Ａ U+FF21 (EF BC A1) < 😀 U+1F600 (F0 9F 98 80); UTF-16 order would put 😀 first.
        List<String> keys = List.of(p + "/é", p + "/Ａ", p + "/😀", p + "/日本/キー");
        for (String k : keys) {
            join(store.put(k, bytes(k)));
        }
        for (String k : keys) {
            assertThat(join(store.get(k)).orElseThrow().value()).isEqualTo(bytes(k));
        }
        assertThat(join(store.list(p + "/", p + "//", Optional.empty())))
                .containsExactly(p + "/é", p + "/Ａ", p + "/😀");
        assertThat(join(store.rangeScan(p + "/", p + "//", Optional.empty(), 0)))
                .extracting(Record::key)
                .containsExactly(p + "/é", p + "/Ａ", p + "/😀");
        assertThat(join(store.list(p + "/日本/", p + "/日本//", Optional.empty()))).containsExactly(p + "/日本/キー");
    }

    // ================================================================ conditional writes

    @Test
    void createIfAbsentSucceedsOnceThenConflicts() {
        PutResult first = join(store.put(p + "/once", bytes("a"), PutOptions.ifAbsent()));
        assertThat(first.version().modificationsCount()).isZero();

        assertThatThrownBy(() -> join(store.put(p + "/once", bytes("b"), PutOptions.ifAbsent())))
                .isInstanceOf(KeyAlreadyExistsException.class)
                .hasMessageContaining(p + "/once")
                .hasMessageContaining(store.address());
        assertThat(join(store.get(p + "/once")).orElseThrow().value()).isEqualTo(bytes("a"));
    }

    @Test
    void compareAndSetSucceedsOnTheCurrentVersionOnly() {
        Version v1 = join(store.put(p + "/cas", bytes("1"))).version();
        Version v2 = join(store.put(p + "/cas", bytes("2"), PutOptions.ifVersion(v1.versionId())))
                .version();
        assertThat(v2.modificationsCount()).isEqualTo(1);

        assertThatThrownBy(() -> join(store.put(p + "/cas", bytes("3"), PutOptions.ifVersion(v1.versionId()))))
                .isInstanceOfSatisfying(UnexpectedVersionException.class, e -> {
                    assertThat(e.key()).isEqualTo(p + "/cas");
                    assertThat(e.expectedVersionId()).isEqualTo(v1.versionId());
                    assertThat(e).hasMessageContaining(p + "/cas").hasMessageContaining(store.address());
                });
        assertThat(join(store.get(p + "/cas")).orElseThrow().value()).isEqualTo(bytes("2"));

        assertThatThrownBy(() -> join(store.put(p + "/absent", bytes("x"), PutOptions.ifVersion(0))))
                .isInstanceOfSatisfying(
                        UnexpectedVersionException.class,
                        e -> assertThat(e.key()).isEqualTo(p + "/absent"));
        assertThat(join(store.get(p + "/absent"))).isEmpty();
    }

    @Test
    void deleteWithAndWithoutVersion() {
        assertThat(join(store.delete(p + "/missing"))).isFalse();
        assertThatThrownBy(() -> join(store.delete(p + "/missing", DeleteOptions.ifVersion(3))))
                .isInstanceOf(UnexpectedVersionException.class);
        assertThat(join(store.delete(p + "/missing", DeleteOptions.ifVersion(PutOptions.ABSENT))))
                .isFalse();

        Version v = join(store.put(p + "/d", bytes("x"))).version();
        assertThatThrownBy(() -> join(store.delete(p + "/d", DeleteOptions.ifVersion(v.versionId() + 1000))))
                .isInstanceOfSatisfying(UnexpectedVersionException.class, e -> {
                    assertThat(e.key()).isEqualTo(p + "/d");
                    assertThat(e.expectedVersionId()).isEqualTo(v.versionId() + 1000);
                });
        assertThatThrownBy(() -> join(store.delete(p + "/d", DeleteOptions.ifVersion(PutOptions.ABSENT))))
                .isInstanceOf(UnexpectedVersionException.class);
        assertThat(join(store.get(p + "/d"))).isPresent();
        assertThat(join(store.delete(p + "/d", DeleteOptions.ifVersion(v.versionId()))))
                .isTrue();
        assertThat(join(store.get(p + "/d"))).isEmpty();

        join(store.put(p + "/d", bytes("y")));
        assertThat(join(store.delete(p + "/d"))).isTrue();
        assertThat(join(store.delete(p + "/d"))).isFalse();
        assertThat(join(store.get(p + "/d"))).isEmpty();
    }

    // ================================================================ comparisons

    @Test
    void floorCeilingLowerHigherWithinALevel() {
        for (String k : List.of("/b", "/d", "/f")) {
            join(store.put(p + k, bytes(k)));
        }
        assertThat(key(Comparison.EQUAL, "/d")).contains(p + "/d");
        assertThat(key(Comparison.EQUAL, "/c")).isEmpty();

        assertThat(key(Comparison.FLOOR, "/d")).contains(p + "/d");
        assertThat(key(Comparison.FLOOR, "/e")).contains(p + "/d");
        assertThat(key(Comparison.FLOOR, "/a")).isEmpty();
        assertThat(key(Comparison.FLOOR, "/z")).contains(p + "/f");

        assertThat(key(Comparison.CEILING, "/d")).contains(p + "/d");
        assertThat(key(Comparison.CEILING, "/c")).contains(p + "/d");
        assertThat(key(Comparison.CEILING, "/a")).contains(p + "/b");
        assertThat(key(Comparison.CEILING, "/g")).isEmpty();

        assertThat(key(Comparison.LOWER, "/d")).contains(p + "/b");
        assertThat(key(Comparison.LOWER, "/c")).contains(p + "/b");
        assertThat(key(Comparison.LOWER, "/b")).isEmpty();

        assertThat(key(Comparison.HIGHER, "/d")).contains(p + "/f");
        assertThat(key(Comparison.HIGHER, "/e")).contains(p + "/f");
        assertThat(key(Comparison.HIGHER, "/f")).isEmpty();

        Record floor =
                join(store.get(p + "/e", GetOptions.of(Comparison.FLOOR))).orElseThrow();
        assertThat(floor.value()).isEqualTo(bytes("/d"));
    }

    @Test
    void comparisonsFollowTheHierarchicalOrderAcrossLevels() {
        // Depth first: every key with one slash sorts before every key with two.
        for (String k : List.of("/b", "/f", "/a/x")) {
            join(store.put(p + k, bytes(k)));
        }
        assertThat(key(Comparison.HIGHER, "/f")).contains(p + "/a/x");
        assertThat(key(Comparison.CEILING, "/zz")).contains(p + "/a/x");
        assertThat(key(Comparison.FLOOR, "/a/a")).contains(p + "/f");
        assertThat(key(Comparison.LOWER, "/a/x")).contains(p + "/f");
        assertThat(key(Comparison.FLOOR, "/a")).isEmpty();
        assertThat(key(Comparison.LOWER, "/b")).isEmpty();
        assertThat(key(Comparison.HIGHER, "/a/x")).isEmpty();
        // A key without slash sorts before all of them.
        join(store.put(p + "zzz", bytes("flat")));
        assertThat(key(Comparison.LOWER, "/b")).contains(p + "zzz");
    }

    @Test
    void comparisonsWithAPartitionKey() {
        String pk = p + "-partition";
        for (String k : List.of("/b", "/d", "/f")) {
            join(store.put(p + k, bytes(k), PutOptions.DEFAULT.partitionKey(pk)));
        }
        GetOptions opts = GetOptions.DEFAULT.partitionKey(pk);
        assertThat(join(store.get(p + "/d", opts))).map(Record::key).contains(p + "/d");
        assertThat(join(store.get(p + "/e", opts.comparison(Comparison.FLOOR))))
                .map(Record::key)
                .contains(p + "/d");
        assertThat(join(store.get(p + "/a", opts.comparison(Comparison.FLOOR)))).isEmpty();
        assertThat(join(store.get(p + "/c", opts.comparison(Comparison.CEILING))))
                .map(Record::key)
                .contains(p + "/d");
        assertThat(join(store.get(p + "/g", opts.comparison(Comparison.CEILING))))
                .isEmpty();
        assertThat(join(store.get(p + "/b", opts.comparison(Comparison.LOWER)))).isEmpty();
        assertThat(join(store.get(p + "/d", opts.comparison(Comparison.LOWER))))
                .map(Record::key)
                .contains(p + "/b");
        assertThat(join(store.get(p + "/d", opts.comparison(Comparison.HIGHER))))
                .map(Record::key)
                .contains(p + "/f");
        assertThat(join(store.get(p + "/f", opts.comparison(Comparison.HIGHER))))
                .isEmpty();
        assertThat(join(store.delete(p + "/d", DeleteOptions.DEFAULT.partitionKey(pk))))
                .isTrue();
        assertThat(join(store.get(p + "/d", opts))).isEmpty();
    }

    // ================================================================ list / rangeScan / deleteRange

    /** Keys (after the prefix) in the order a real Oxia server keeps them. */
    private static final List<String> ORDERED = List.of(
            "a", "a-1", // no slash
            "/a", "/a-1", "/ab", "/z", // one slash; '/' sorts above every other byte
            "/a/", "/a/b", "/a//", "/b/c", // two ("/a//": a trailing "//" opens no new level)
            "/a/b/c"); // three

    @Test
    void listAndRangeScanUseTheHierarchicalKeyOrder() {
        List<String> shuffled = new ArrayList<>(ORDERED);
        Collections.shuffle(shuffled, new Random(7));
        for (String k : shuffled) {
            join(store.put(p + k, bytes(k)));
        }
        List<String> expected = ORDERED.stream().map(k -> p + k).toList();

        assertThat(join(store.list("", END_OF_KEYS, Optional.empty()))).containsExactlyElementsOf(expected);
        assertThat(join(store.rangeScan("", END_OF_KEYS, Optional.empty(), 0)))
                .extracting(Record::key)
                .containsExactlyElementsOf(expected);
        // The direct children of p, and of p/a.
        assertThat(join(store.list(p + "/", p + "//", Optional.empty())))
                .containsExactly(p + "/a", p + "/a-1", p + "/ab", p + "/z");
        assertThat(join(store.list(p + "/a/", p + "/a//", Optional.empty()))).containsExactly(p + "/a/", p + "/a/b");
        // A range between two keys of one level holds no deeper keys: depth comes first.
        assertThat(join(store.list(p + "/a", p + "/b", Optional.empty())))
                .containsExactly(p + "/a", p + "/a-1", p + "/ab");
        assertThat(join(store.list(p + "/b", p + "/a", Optional.empty())))
                .as("start after end")
                .isEmpty();
        List<String> sorted = new ArrayList<>(expected);
        Collections.shuffle(sorted, new Random(3));
        sorted.sort(KeyOrder.COMPARATOR);
        assertThat(sorted).as("KeyOrder agrees with the store").containsExactlyElementsOf(expected);
    }

    @Test
    void aPartitionKeyPlacesButDoesNotFilter() {
        String pk = p + "-pk";
        join(store.put(p + "/1", bytes("1"), PutOptions.DEFAULT.partitionKey(pk)));
        join(store.put(p + "/2", bytes("2")));
        join(store.put(p + "/3", bytes("3"), PutOptions.DEFAULT.partitionKey(p + "-other")));
        // On a single shard (the embedded store; the one-shard test server) every key of the range is there.
        assertThat(join(store.list(p + "/", p + "//", Optional.of(pk)))).containsExactly(p + "/1", p + "/2", p + "/3");
        assertThat(join(store.rangeScan(p + "/", p + "//", Optional.of(pk), 0)))
                .extracting(Record::key)
                .containsExactly(p + "/1", p + "/2", p + "/3");
    }

    @Test
    void rangeScanHonoursTheLimit() {
        for (int i = 0; i < 6; i++) {
            join(store.put(p + "/r" + i, bytes("v" + i), PutOptions.DEFAULT.partitionKey(p)));
        }
        for (Optional<String> pk : List.of(Optional.<String>empty(), Optional.of(p))) {
            assertThat(join(store.rangeScan(p + "/", p + "//", pk, 2)))
                    .extracting(Record::key)
                    .containsExactly(p + "/r0", p + "/r1");
            assertThat(join(store.rangeScan(p + "/", p + "//", pk, 1)))
                    .extracting(Record::key)
                    .containsExactly(p + "/r0");
            assertThat(join(store.rangeScan(p + "/", p + "//", pk, 0))).hasSize(6);
            assertThat(join(store.rangeScan(p + "/", p + "//", pk, 100))).hasSize(6);
            assertThat(join(store.rangeScan(p + "/r2", p + "/r4", pk, 0)))
                    .extracting(Record::key)
                    .containsExactly(p + "/r2", p + "/r3");
            List<Record> two = join(store.rangeScan(p + "/r3", p + "//", pk, 2));
            assertThat(two).extracting(Record::key).containsExactly(p + "/r3", p + "/r4");
            assertThat(two.get(1).value()).isEqualTo(bytes("v4"));
        }
    }

    @Test
    void deleteRangeDeletesOneLevelOfTheRange() {
        for (String k : List.of("/r/1", "/r/2", "/r/3", "/r/2/deeper", "/q", "/s")) {
            join(store.put(p + k, bytes(k)));
        }
        join(store.deleteRange(p + "/r/", p + "/r//", Optional.empty()));
        assertThat(join(store.list("", END_OF_KEYS, Optional.empty())))
                .containsExactly(p + "/q", p + "/s", p + "/r/2/deeper");

        join(store.deleteRange(p + "/s", p + "/q", Optional.empty())); // empty range: no-op
        assertThat(join(store.list("", END_OF_KEYS, Optional.empty()))).hasSize(3);

        // Many keys (above the point where Oxia switches to a range tombstone).
        List<CompletableFuture<PutResult>> puts = new ArrayList<>();
        for (int i = 0; i < 150; i++) {
            puts.add(
                    store.put(p + "/many/" + String.format("%03d", i), bytes("x"), PutOptions.DEFAULT.partitionKey(p)));
        }
        puts.forEach(MetadataStoreConformanceTest::join);
        assertThat(join(store.list(p + "/many/", p + "/many//", Optional.empty())))
                .hasSize(150);
        join(store.deleteRange(p + "/many/", p + "/many//", Optional.of(p)));
        assertThat(join(store.list(p + "/many/", p + "/many//", Optional.empty())))
                .isEmpty();
        assertThat(join(store.get(p + "/many/007"))).isEmpty();
        join(store.put(p + "/many/007", bytes("again")));
        assertThat(join(store.get(p + "/many/007"))).isPresent();
    }

    // ================================================================ sequence keys

    @Test
    void sequenceKeysAreAssignedFromTheLastKeyOfThePrefix() {
        String prefix = p + "/seq";
        PutOptions seq = PutOptions.DEFAULT.partitionKey(p);
        PutResult first = join(store.put(prefix, bytes("1"), seq.sequenceKeyDeltas(1)));
        assertThat(first.key()).isEqualTo(prefix + "-00000000000000000001");
        assertThat(first.version().modificationsCount()).isZero();
        PutResult second = join(store.put(prefix, bytes("2"), seq.sequenceKeyDeltas(5)));
        assertThat(second.key()).isEqualTo(prefix + "-00000000000000000006");
        assertThat(join(store.get(second.key(), GetOptions.DEFAULT.partitionKey(p))))
                .map(r -> r.value())
                .hasValueSatisfying(v -> assertThat(v).isEqualTo(bytes("2")));

        String multi = p + "/multi";
        assertThat(join(store.put(multi, bytes("a"), seq.sequenceKeyDeltas(3, 100)))
                        .key())
                .isEqualTo(multi + "-00000000000000000003-00000000000000000100");
        assertThat(join(store.put(multi, bytes("b"), seq.sequenceKeyDeltas(2, 50)))
                        .key())
                .isEqualTo(multi + "-00000000000000000005-00000000000000000150");
        assertThat(join(store.put(multi, bytes("c"), seq.sequenceKeyDeltas(1, 0, 7)))
                        .key())
                .as("an extra counter starts from zero")
                .isEqualTo(multi + "-00000000000000000006-00000000000000000150-00000000000000000007");
        assertThat(join(store.list(multi, multi + "-~", Optional.of(p))))
                .containsExactly(
                        multi + "-00000000000000000003-00000000000000000100",
                        multi + "-00000000000000000005-00000000000000000150",
                        multi + "-00000000000000000006-00000000000000000150-00000000000000000007");
        // Fewer deltas than the last key has counters: refused by the store.
        assertThatThrownBy(() -> join(store.put(multi, bytes("d"), seq.sequenceKeyDeltas(1))))
                .isInstanceOf(InvalidKeyException.class)
                .hasMessageContaining(multi);
    }

    @Test
    void sequenceKeysRestartAfterAllKeysOfThePrefixAreDeleted() {
        String prefix = p + "/restart";
        PutOptions seq = PutOptions.DEFAULT.partitionKey(p).sequenceKeyDeltas(1);
        for (int i = 1; i <= 3; i++) {
            assertThat(join(store.put(prefix, bytes("x"), seq)).key()).endsWith(String.format("-%020d", i));
        }
        join(store.delete(prefix + "-00000000000000000003", DeleteOptions.DEFAULT.partitionKey(p)));
        assertThat(join(store.put(prefix, bytes("x"), seq)).key())
                .as("the counter follows the highest key left")
                .isEqualTo(prefix + "-00000000000000000003");
        join(store.deleteRange(prefix + "-", prefix + "-~", Optional.of(p)));
        assertThat(join(store.list(p + "/", p + "//", Optional.of(p)))).isEmpty();
        assertThat(join(store.put(prefix, bytes("x"), seq)).key()).isEqualTo(prefix + "-00000000000000000001");
    }

    @Test
    void invalidKeysAndSequenceOptionsAreRefusedBeforeSending() {
        PutOptions seq = PutOptions.DEFAULT.partitionKey(p);
        assertInvalid(store.put("", bytes("x")), null);
        assertInvalid(store.get(""), null);
        assertInvalid(store.delete(""), null);
        assertInvalid(store.put("__oxia/mine", bytes("x")), "__oxia/mine");
        assertInvalid(store.put(p + "/s", bytes("x"), PutOptions.DEFAULT.sequenceKeyDeltas(1)), p + "/s");
        assertInvalid(store.put(p + "/s", bytes("x"), seq.sequenceKeyDeltas(0)), p + "/s");
        assertInvalid(store.put(p + "/s", bytes("x"), seq.sequenceKeyDeltas(-1)), p + "/s");
        assertInvalid(store.put(p + "/s", bytes("x"), seq.sequenceKeyDeltas(1, -2)), p + "/s");
        assertInvalid(store.put(p + "/s", bytes("x"), seq.sequenceKeyDeltas(1).expectedVersionId(0)), p + "/s");
        assertInvalid(
                store.put(p + "/s", bytes("x"), seq.sequenceKeyDeltas(1).expectedVersionId(PutOptions.ABSENT)),
                p + "/s");
        assertInvalid(store.put(p + "/s", bytes("x"), PutOptions.DEFAULT.partitionKey("")), p + "/s");
        assertInvalid(store.put(p + "/s", bytes("x"), PutOptions.ifVersion(-7)), p + "/s");
        assertInvalid(store.put(p + "/\uD800", bytes("x")), null);
        assertThat(join(store.list(p, END_OF_KEYS, Optional.empty()))).isEmpty();
    }

    // ================================================================ ephemeral records

    @Test
    void ephemeralRecordsEndWithTheStoreThatWroteThem() throws Exception {
        Optional<MetadataStore> other = second();
        MetadataStore writer = other.orElse(store);
        PutResult eph = join(writer.put(p + "/eph", bytes("e"), PutOptions.DEFAULT.asEphemeral()));
        join(writer.put(p + "/durable", bytes("d")));
        assertThat(eph.version().isEphemeral()).isTrue();

        // Visible to everyone while the writer is open.
        Record seen = join(store.get(p + "/eph")).orElseThrow();
        assertThat(seen.version().isEphemeral()).isTrue();
        assertThat(seen.version().sessionId()).isEqualTo(eph.version().sessionId());

        // Overwriting an ephemeral record with a plain put makes it durable.
        join(writer.put(p + "/eph2", bytes("e"), PutOptions.DEFAULT.asEphemeral()));
        Version durable = join(writer.put(p + "/eph2", bytes("now durable"))).version();
        assertThat(durable.isEphemeral()).isFalse();

        writer.close();
        if (other.isPresent()) {
            await("the ephemeral record is deleted when its client closes")
                    .atMost(TIMEOUT)
                    .until(() -> join(store.get(p + "/eph")).isEmpty());
        } else {
            store = openStore();
            assertThat(join(store.get(p + "/eph"))).isEmpty();
        }
        assertThat(join(store.get(p + "/durable"))).isPresent();
        assertThat(join(store.get(p + "/eph2"))).isPresent();
    }

    // ================================================================ notifications

    @Test
    void listenersSeeCreatedModifiedDeletedAndRangeDeleted() throws Exception {
        MetadataStore writer = second().orElse(store);
        List<Notification> seen = new CopyOnWriteArrayList<>();
        AutoCloseable handle = store.addListener(seen::add);
        awaitListenerLive(writer, seen);

        String k = p + "/n/k";
        Version v1 = join(writer.put(k, bytes("1"))).version();
        Version v2 = join(writer.put(k, bytes("2"))).version();
        assertThat(join(writer.delete(k))).isTrue();
        join(writer.deleteRange(p + "/n/", p + "/n//", Optional.empty()));

        List<Notification> expected = List.of(
                new Notification.KeyCreated(k, v1.versionId()),
                new Notification.KeyModified(k, v2.versionId()),
                new Notification.KeyDeleted(k),
                new Notification.KeyRangeDeleted(p + "/n/", p + "/n//"));
        await("all four notifications")
                .atMost(TIMEOUT)
                .until(() -> ours(seen, p + "/n/").size() >= 4);
        assertThat(ours(seen, p + "/n/")).containsExactlyElementsOf(expected);

        // A closed handle gets nothing more. Notifications are dispatched in commit order, so once a listener
        // registered later sees a probe written after "/n/after", "/n/after" went out to whoever was registered.
        handle.close();
        int before = seen.size();
        join(writer.put(p + "/n/after", bytes("x")));
        List<Notification> control = new CopyOnWriteArrayList<>();
        AutoCloseable controlHandle = store.addListener(control::add);
        try {
            awaitListenerLive(writer, control);
        } finally {
            controlHandle.close();
        }
        assertThat(ours(seen.subList(before, seen.size()), p + "/n/"))
                .as("nothing after close")
                .isEmpty();
    }

    /**
     * Writes a probe (again every 300 ms: a put made before the subscription was live is not notified) until
     * {@code seen} has it: the listener's subscription is then live.
     */
    private void awaitListenerLive(MetadataStore writer, List<Notification> seen) {
        String probe = p + "/probe";
        AtomicInteger polls = new AtomicInteger();
        await("the listener sees the probe key " + probe)
                .atMost(TIMEOUT)
                .pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(20))
                .until(() -> {
                    if (polls.getAndIncrement() % 15 == 0) {
                        join(writer.put(probe, bytes("probe")));
                    }
                    return seen.stream()
                            .anyMatch(n -> (n instanceof Notification.KeyCreated c
                                            && c.key().equals(probe))
                                    || (n instanceof Notification.KeyModified m
                                            && m.key().equals(probe)));
                });
    }

    private static List<Notification> ours(List<Notification> all, String prefix) {
        return all.stream()
                .filter(n -> switch (n) {
                    case Notification.KeyCreated c -> c.key().startsWith(prefix);
                    case Notification.KeyModified m -> m.key().startsWith(prefix);
                    case Notification.KeyDeleted d -> d.key().startsWith(prefix);
                    case Notification.KeyRangeDeleted r -> r.startInclusive().startsWith(prefix);
                })
                .toList();
    }

    // ================================================================ concurrency

    @Test
    void racingCompareAndSetIncrementsLoseNoUpdate() throws Exception {
        String counter = p + "/counter";
        join(store.put(counter, bytes("0")));
        int threads = 8;
        int incrementsPerThread = 10;
        AtomicInteger conflicts = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch go = new CountDownLatch(1);
        try {
            List<Future<Integer>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                results.add(pool.submit(() -> {
                    go.await();
                    int successes = 0;
                    while (successes < incrementsPerThread) {
                        Record r = join(store.get(counter)).orElseThrow();
                        long next = Long.parseLong(new String(r.value(), StandardCharsets.UTF_8)) + 1;
                        try {
                            join(store.put(
                                    counter,
                                    bytes(Long.toString(next)),
                                    PutOptions.ifVersion(r.version().versionId())));
                            successes++;
                        } catch (UnexpectedVersionException e) {
                            conflicts.incrementAndGet();
                        }
                    }
                    return successes;
                }));
            }
            go.countDown();
            int total = 0;
            for (Future<Integer> f : results) {
                total += f.get(2, TimeUnit.MINUTES);
            }
            Record fin = join(store.get(counter)).orElseThrow();
            assertThat(Long.parseLong(new String(fin.value(), StandardCharsets.UTF_8)))
                    .isEqualTo(total)
                    .isEqualTo((long) threads * incrementsPerThread);
            assertThat(fin.version().modificationsCount()).isEqualTo(total);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void racingSequencePutsGetDistinctDenseKeys() throws Exception {
        String prefix = p + "/race";
        int threads = 8;
        int putsPerThread = 10;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch go = new CountDownLatch(1);
        try {
            List<Future<List<String>>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                results.add(pool.submit(() -> {
                    go.await();
                    List<String> keys = new ArrayList<>();
                    for (int i = 0; i < putsPerThread; i++) {
                        keys.add(join(store.put(
                                        prefix,
                                        bytes("x"),
                                        PutOptions.DEFAULT.partitionKey(p).sequenceKeyDeltas(1)))
                                .key());
                    }
                    return keys;
                }));
            }
            go.countDown();
            Set<String> all = new HashSet<>();
            int count = 0;
            for (Future<List<String>> f : results) {
                List<String> keys = f.get(2, TimeUnit.MINUTES);
                count += keys.size();
                all.addAll(keys);
                List<String> sorted = new ArrayList<>(keys);
                sorted.sort(KeyOrder.COMPARATOR);
                assertThat(keys).as("one thread's keys increase").containsExactlyElementsOf(sorted);
            }
            int n = threads * putsPerThread;
            assertThat(count).isEqualTo(n);
            Set<String> dense = new HashSet<>();
            for (int i = 1; i <= n; i++) {
                dense.add(prefix + String.format("-%020d", i));
            }
            assertThat(all).as("no duplicates, counters 1..n").isEqualTo(dense);
            assertThat(join(store.list(prefix, prefix + "-~", Optional.of(p)))).hasSize(n);
        } finally {
            pool.shutdownNow();
        }
    }

    // ================================================================ restart

    @Test
    void dataSurvivesARestart() throws Exception {
        Version v = join(store.put(p + "/keep", bytes("kept"))).version();
        String seqKey = join(store.put(
                        p + "/seq",
                        bytes("s"),
                        PutOptions.DEFAULT.partitionKey(p).sequenceKeyDeltas(4)))
                .key();

        store = restartBackend(store);

        Record r = join(store.get(p + "/keep")).orElseThrow();
        assertThat(r.value()).isEqualTo(bytes("kept"));
        assertThat(r.version()).isEqualTo(v);
        assertThat(seqKey).isEqualTo(p + "/seq-00000000000000000004");
        assertThat(join(store.put(
                                p + "/seq",
                                bytes("s"),
                                PutOptions.DEFAULT.partitionKey(p).sequenceKeyDeltas(1)))
                        .key())
                .isEqualTo(p + "/seq-00000000000000000005");
        Version after = join(store.put(p + "/keep", bytes("changed"), PutOptions.ifVersion(v.versionId())))
                .version();
        assertThat(after.versionId()).as("version ids keep increasing").isGreaterThan(v.versionId());
        assertThat(after.modificationsCount()).isEqualTo(1);

        // A client opened after the restart (Oxia; the embedded store above already is one) sees it all too.
        second().ifPresent(fresh ->
                assertThat(join(fresh.get(p + "/keep")).orElseThrow().value()).isEqualTo(bytes("changed")));
    }

    // ================================================================ helpers

    protected Optional<String> key(Comparison c, String relative) {
        return join(store.get(p + relative, GetOptions.of(c))).map(Record::key);
    }

    private void assertInvalid(CompletableFuture<?> f, String key) {
        assertThatThrownBy(() -> join(f))
                .isInstanceOf(InvalidKeyException.class)
                .hasMessageContaining(store.address())
                .satisfies(e -> {
                    if (key != null) {
                        assertThat(e).hasMessageContaining(key);
                    }
                });
    }

    protected static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** The future's value; its failure's cause rethrown as is (unchecked). */
    protected static <T> T join(CompletableFuture<T> f) {
        try {
            return f.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof RuntimeException r) {
                throw r;
            }
            if (c instanceof Error err) {
                throw err;
            }
            throw new RuntimeException(c);
        } catch (TimeoutException e) {
            throw new AssertionError("no result within " + TIMEOUT, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** Polls {@code attempt} until it returns without a {@link MetadataStoreUnavailableException}. */
    protected static <T> T retryWhileUnavailable(Duration timeout, Supplier<T> attempt) {
        return await("an answer without MetadataStoreUnavailableException")
                .atMost(timeout)
                .pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(20))
                .ignoreException(MetadataStoreUnavailableException.class)
                .until(attempt::get, answer -> true);
    }
}
