package dev.lakestream.pulsar.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lakestream.core.metadata.MetadataStore;
import dev.lakestream.core.metadata.PutOptions;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.commons.lang3.tuple.Pair;
import org.apache.pulsar.broker.service.schema.exceptions.InvalidSchemaDataException;
import org.apache.pulsar.broker.service.schema.exceptions.SchemaException;
import org.apache.pulsar.common.protocol.schema.SchemaVersion;
import org.apache.pulsar.common.protocol.schema.StoredSchema;
import org.apache.pulsar.common.schema.LongSchemaVersion;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;

/**
 * {@link LakestreamSchemaStorage} against a real metadata store: the semantics Pulsar's registry relies on, concurrent
 * puts from two storage instances, restart, deletes, corrupt records and bad input. Subclasses give the store.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
abstract class SchemaStorageContractTest {

    static final String ROOT = "/lakestream";

    /** A client of the store under test; every call returns a client of the same data. */
    protected abstract MetadataStore openStore() throws Exception;

    /** Whether {@link #openStore()} may be called while another client is open (Oxia: yes; RocksDB: no). */
    protected abstract boolean allowsTwoClients();

    private final List<MetadataStore> stores = new ArrayList<>();
    private ExecutorService executor;
    private String id;
    MetadataStore store;
    LakestreamSchemaStorage storage;

    @BeforeEach
    void setUp(TestInfo info) throws Exception {
        executor = Executors.newFixedThreadPool(4);
        // Schema ids look like topic names without the domain (tenant/namespace/topic); unique per test.
        id = "tenant/ns/" + info.getTestMethod().orElseThrow().getName() + "-" + System.nanoTime();
        store = open();
        storage = new LakestreamSchemaStorage(store, ROOT, executor);
        storage.start();
    }

    @AfterEach
    void tearDown() throws Exception {
        storage.close();
        for (MetadataStore s : stores) {
            s.close();
        }
        executor.shutdownNow();
    }

    MetadataStore open() throws Exception {
        MetadataStore s = openStore();
        stores.add(s);
        return s;
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static byte[] sha256(byte[] data) throws Exception {
        return MessageDigest.getInstance("SHA-256").digest(data);
    }

    static <T> T await(CompletableFuture<T> f) throws Exception {
        return f.get(60, TimeUnit.SECONDS);
    }

    long put(LakestreamSchemaStorage s, String data) throws Exception {
        return ((LongSchemaVersion) await(s.put(id, bytes(data), sha256(bytes(data))))).getVersion();
    }

    String text(StoredSchema s) {
        return new String(s.data, StandardCharsets.UTF_8);
    }

    List<String> all(LakestreamSchemaStorage s) throws Exception {
        List<String> out = new ArrayList<>();
        for (CompletableFuture<StoredSchema> f : await(s.getAll(id))) {
            StoredSchema stored = await(f);
            assertThat(((LongSchemaVersion) stored.version).getVersion()).isEqualTo(out.size());
            out.add(text(stored));
        }
        return out;
    }

    Throwable failure(CompletableFuture<?> f) {
        assertThatThrownBy(() -> await(f)).isInstanceOf(ExecutionException.class);
        return f.handle((r, t) -> t).join();
    }

    // ---- versions ----

    @Test
    void versionsAreDenseFromZeroAndReadable() throws Exception {
        assertThat(await(storage.get(id, SchemaVersion.Latest)))
                .as("no schema yet")
                .isNull();
        assertThat(await(storage.getAll(id))).isEmpty();

        assertThat(put(storage, "a")).isZero();
        assertThat(put(storage, "b")).isEqualTo(1);
        assertThat(put(storage, "c")).isEqualTo(2);

        StoredSchema latest = await(storage.get(id, SchemaVersion.Latest));
        assertThat(text(latest)).isEqualTo("c");
        assertThat(latest.version).isEqualTo(new LongSchemaVersion(2));
        assertThat(text(await(storage.get(id, new LongSchemaVersion(1))))).isEqualTo("b");
        assertThat(text(await(storage.get(id, new LongSchemaVersion(0))))).isEqualTo("a");
        assertThat(await(storage.get(id, new LongSchemaVersion(3))))
                .as("past the latest")
                .isNull();
        assertThat(await(storage.get(id, new LongSchemaVersion(-1)))).isNull();
        assertThat(all(storage)).containsExactly("a", "b", "c");
        assertThat(await(storage.get(id + "-other", SchemaVersion.Latest))).isNull();
    }

    @Test
    void aPutWithTheLatestHashReturnsTheLatestVersion() throws Exception {
        assertThat(put(storage, "a")).isZero();
        assertThat(put(storage, "a")).as("same hash as the latest").isZero();
        assertThat(put(storage, "b")).isEqualTo(1);
        // Only the latest version is compared (an older one may precede a deletion tombstone).
        assertThat(put(storage, "a")).isEqualTo(2);
        // Empty hashes (the registry's tombstones) never match.
        byte[] tomb = bytes("deleted");
        assertThat(await(storage.put(id, tomb, new byte[0]))).isEqualTo(new LongSchemaVersion(3));
        assertThat(await(storage.put(id, tomb, new byte[0]))).isEqualTo(new LongSchemaVersion(4));
        assertThat(all(storage)).containsExactly("a", "b", "a", "deleted", "deleted");
    }

    @Test
    void putWithAFunctionSeesEveryVersionAndANullPairWritesNothing() throws Exception {
        put(storage, "a");
        put(storage, "b");
        SchemaVersion none = await(storage.put(
                id,
                all -> all.thenCompose(list -> {
                    assertThat(list).hasSize(2);
                    return CompletableFuture.completedFuture(null);
                })));
        assertThat(none).isNull();
        assertThat(all(storage)).containsExactly("a", "b");

        SchemaVersion v = await(storage.put(
                id, all -> all.thenApply(list -> Pair.of(bytes("after-" + list.size()), bytes("h")))));
        assertThat(v).isEqualTo(new LongSchemaVersion(2));
        assertThat(all(storage)).containsExactly("a", "b", "after-2");
    }

    @Test
    void aFailingFunctionFailsThePutWithItsException() throws Exception {
        SchemaException incompatible = new SchemaException(true, "incompatible");
        Throwable t = failure(storage.put(id, all -> CompletableFuture.failedFuture(incompatible)));
        assertThat(t).isSameAs(incompatible);
        assertThat(await(storage.getAll(id))).isEmpty();
    }

    // ---- concurrency ----

    @Test
    void concurrentPutsFromTwoStorageInstancesGetDistinctDenseVersions() throws Exception {
        MetadataStore second = allowsTwoClients() ? open() : store;
        LakestreamSchemaStorage other = new LakestreamSchemaStorage(second, ROOT, executor);
        int perInstance = 15;
        List<CompletableFuture<SchemaVersion>> puts = new ArrayList<>();
        for (int i = 0; i < perInstance; i++) {
            puts.add(storage.put(id, bytes("one-" + i), sha256(bytes("one-" + i))));
            puts.add(other.put(id, bytes("two-" + i), sha256(bytes("two-" + i))));
        }
        Set<Long> versions = new HashSet<>();
        for (CompletableFuture<SchemaVersion> f : puts) {
            versions.add(((LongSchemaVersion) await(f)).getVersion());
        }
        assertThat(versions).hasSize(2 * perInstance);
        assertThat(versions).allMatch(v -> v >= 0 && v < 2L * perInstance);
        List<String> seen = all(other);
        assertThat(seen).hasSize(2 * perInstance);
        assertThat(seen).containsExactlyInAnyOrderElementsOf(expectedNames(perInstance));
        // Each put's version holds that put's data.
        for (int i = 0; i < puts.size(); i++) {
            long v = ((LongSchemaVersion) puts.get(i).join()).getVersion();
            assertThat(seen.get((int) v)).isEqualTo((i % 2 == 0 ? "one-" : "two-") + (i / 2));
        }
        assertThat(dataKeys()).as("losers removed their data records").hasSize(2 * perInstance);
    }

    private static List<String> expectedNames(int n) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add("one-" + i);
            out.add("two-" + i);
        }
        return out;
    }

    @Test
    void concurrentFunctionPutsRerunTheFunctionOnTheNewSnapshot() throws Exception {
        MetadataStore second = allowsTwoClients() ? open() : store;
        LakestreamSchemaStorage other = new LakestreamSchemaStorage(second, ROOT, executor);
        AtomicInteger calls = new AtomicInteger();
        List<CompletableFuture<SchemaVersion>> puts = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            LakestreamSchemaStorage s = i % 2 == 0 ? storage : other;
            puts.add(s.put(
                    id,
                    all -> all.thenApply(list -> {
                        calls.incrementAndGet();
                        // Like the registry: decide from the snapshot. A stale snapshot must never be committed.
                        return Pair.of(bytes("seen-" + list.size()), bytes("h-" + list.size()));
                    })));
        }
        for (CompletableFuture<SchemaVersion> f : puts) {
            await(f);
        }
        List<String> seen = all(storage);
        assertThat(seen).hasSize(10);
        for (int v = 0; v < seen.size(); v++) {
            assertThat(seen.get(v))
                    .as("version %s was decided on a snapshot of %s versions", v, v)
                    .isEqualTo("seen-" + v);
        }
        assertThat(calls.get()).isGreaterThanOrEqualTo(10);
    }

    // ---- deletes ----

    @Test
    void deleteRemovesEveryVersionAndVersionsRestartFromZero() throws Exception {
        put(storage, "a");
        put(storage, "b");
        assertThat(dataKeys()).hasSize(2);

        assertThat(await(storage.delete(id))).isEqualTo(new LongSchemaVersion(-1));
        assertThat(await(storage.get(id, SchemaVersion.Latest))).isNull();
        assertThat(await(storage.get(id, new LongSchemaVersion(0)))).isNull();
        assertThat(await(storage.getAll(id))).isEmpty();
        assertThat(dataKeys()).isEmpty();
        assertThat(await(storage.delete(id))).as("nothing left to delete").isNull();

        assertThat(put(storage, "c")).isZero();
        assertThat(all(storage)).containsExactly("c");

        assertThat(await(storage.delete(id, true))).isEqualTo(new LongSchemaVersion(-1));
        assertThat(await(storage.getAll(id))).isEmpty();
        assertThat(await(storage.delete(id, true))).isNull();
        assertThat(put(storage, "d")).isZero();
    }

    @Test
    void aDeleteRacingPutsLeavesAConsistentSchema() throws Exception {
        put(storage, "a");
        List<CompletableFuture<SchemaVersion>> puts = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            puts.add(storage.put(id, bytes("p" + i), sha256(bytes("p" + i))));
            if (i == 3) {
                puts.add(storage.delete(id, true));
            }
        }
        for (CompletableFuture<SchemaVersion> f : puts) {
            await(f);
        }
        // Whatever the interleaving, the versions left are dense from 0 and all readable.
        List<String> left = all(storage);
        assertThat(left).isNotEmpty();
        assertThat(dataKeys()).hasSizeGreaterThanOrEqualTo(left.size());
    }

    // ---- restart ----

    @Test
    void aNewStorageInstanceOnAReopenedStoreSeesEverything() throws Exception {
        put(storage, "a");
        put(storage, "b");
        storage.close();
        stores.remove(store);
        store.close();

        store = open();
        storage = new LakestreamSchemaStorage(store, ROOT, executor);
        storage.start();
        assertThat(all(storage)).containsExactly("a", "b");
        assertThat(text(await(storage.get(id, SchemaVersion.Latest)))).isEqualTo("b");
        assertThat(put(storage, "b")).as("dedup against the stored latest").isEqualTo(1);
        assertThat(put(storage, "c")).isEqualTo(2);
    }

    // ---- corruption ----

    @Test
    void aCorruptHeadIsAClearRecoverableErrorAndOnlyAForcedDeleteRemovesIt() throws Exception {
        put(storage, "a");
        String head = new SchemaRecords(ROOT).headKey(id);
        await(store.put(head, bytes("garbage!!"), PutOptions.DEFAULT.partitionKey(head)));

        Throwable t = failure(storage.get(id, SchemaVersion.Latest));
        assertThat(t)
                .isInstanceOf(SchemaRecordCorruptedException.class)
                .hasMessageContaining(head)
                .hasMessageContaining("bad magic");
        assertThat(((SchemaException) t).isRecoverable()).isTrue();
        assertThat(failure(storage.getAll(id))).isInstanceOf(SchemaRecordCorruptedException.class);
        assertThat(failure(storage.put(id, bytes("b"), bytes("h")))).isInstanceOf(SchemaRecordCorruptedException.class);
        assertThat(failure(storage.delete(id)))
                .isInstanceOf(SchemaRecordCorruptedException.class)
                .hasMessageContaining("--force");

        assertThat(await(storage.delete(id, true))).isEqualTo(new LongSchemaVersion(-1));
        assertThat(dataKeys()).isEmpty();
        assertThat(put(storage, "b")).isZero();
    }

    @Test
    void aCorruptOrMissingDataRecordIsAClearError() throws Exception {
        put(storage, "a");
        put(storage, "b");
        List<String> keys = dataKeys();
        String v0 = keys.get(0);
        String head = new SchemaRecords(ROOT).headKey(id);
        byte[] good = SchemaRecords.encodeData(0, bytes("a"));
        byte[] flipped = good.clone();
        flipped[flipped.length - 1] ^= 1;
        await(store.put(v0, flipped, PutOptions.DEFAULT.partitionKey(head)));

        // A fresh instance: nothing cached.
        LakestreamSchemaStorage fresh = new LakestreamSchemaStorage(store, ROOT, executor);
        assertThat(failure(fresh.get(id, new LongSchemaVersion(0))))
                .isInstanceOf(SchemaRecordCorruptedException.class)
                .hasMessageContaining(v0)
                .hasMessageContaining("CRC32C mismatch");
        assertThat(text(await(fresh.get(id, SchemaVersion.Latest))))
                .as("other versions still read")
                .isEqualTo("b");

        await(store.delete(keys.get(1), dev.lakestream.core.metadata.DeleteOptions.DEFAULT.partitionKey(head)));
        LakestreamSchemaStorage fresh2 = new LakestreamSchemaStorage(store, ROOT, executor);
        assertThat(failure(fresh2.get(id, SchemaVersion.Latest)))
                .isInstanceOf(SchemaRecordCorruptedException.class)
                .hasMessageContaining(keys.get(1))
                .hasMessageContaining("missing");
    }

    // ---- bad input and limits ----

    @Test
    void badInputFailsWithInvalidSchemaData() throws Exception {
        assertThat(failure(storage.put("", bytes("a"), bytes("h")))).isInstanceOf(InvalidSchemaDataException.class);
        assertThat(failure(storage.get(null, SchemaVersion.Latest))).isInstanceOf(InvalidSchemaDataException.class);
        assertThat(failure(storage.put(id, null, bytes("h"))))
                .isInstanceOf(InvalidSchemaDataException.class)
                .hasMessageContaining(id);
        assertThat(failure(storage.get(id, SchemaVersion.Empty)))
                .isInstanceOf(InvalidSchemaDataException.class)
                .hasMessageContaining("LongSchemaVersion");
        byte[] tooBig = new byte[SchemaRecords.MAX_SCHEMA_BYTES + 1];
        assertThat(failure(storage.put(id, tooBig, bytes("h"))))
                .isInstanceOf(InvalidSchemaDataException.class)
                .hasMessageContaining(String.valueOf(SchemaRecords.MAX_SCHEMA_BYTES));
        assertThat(await(storage.getAll(id))).isEmpty();
    }

    @Test
    void aSchemaAtTheSizeLimitRoundTrips() throws Exception {
        byte[] big = new byte[SchemaRecords.MAX_SCHEMA_BYTES];
        for (int i = 0; i < big.length; i++) {
            big[i] = (byte) (i * 31);
        }
        assertThat(await(storage.put(id, big, sha256(big)))).isEqualTo(new LongSchemaVersion(0));
        LakestreamSchemaStorage fresh = new LakestreamSchemaStorage(store, ROOT, executor);
        assertThat(await(fresh.get(id, SchemaVersion.Latest)).data).isEqualTo(big);
    }

    @Test
    void versionFromBytesIsABigEndianLong() {
        byte[] eight = ByteBuffer.allocate(8).putLong(42).array();
        assertThat(storage.versionFromBytes(eight)).isEqualTo(new LongSchemaVersion(42));
        assertThat(storage.versionFromBytes(new LongSchemaVersion(7).bytes())).isEqualTo(new LongSchemaVersion(7));
        byte[] legacy = ByteBuffer.allocate(64).putLong(3).array(); // pre-2.4 64-byte versions: the first 8 bytes
        assertThat(storage.versionFromBytes(legacy)).isEqualTo(new LongSchemaVersion(3));
        assertThatThrownBy(() -> storage.versionFromBytes(new byte[3]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("3 bytes");
    }

    /** The data records under the schema's head, in key (= version) order. */
    List<String> dataKeys() throws Exception {
        String head = new SchemaRecords(ROOT).headKey(id);
        return await(store.list(head + "/", head + "//", Optional.of(head)));
    }
}
