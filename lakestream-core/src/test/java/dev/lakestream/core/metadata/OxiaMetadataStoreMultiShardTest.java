package dev.lakestream.core.metadata;

import static dev.lakestream.core.metadata.MetadataStoreConformanceTest.END_OF_KEYS;
import static dev.lakestream.core.metadata.MetadataStoreConformanceTest.bytes;
import static dev.lakestream.core.metadata.MetadataStoreConformanceTest.join;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lakestream.core.metadata.oxia.OxiaMetadataStore;
import dev.lakestream.core.metadata.oxia.OxiaMetadataStoreConfig;
import dev.lakestream.testkit.OxiaServerExtension;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What changes when an Oxia namespace has several shards: the client queries every shard for scans without a
 * partition key and merges (list) or interleaves (rangeScan) their answers; the store must still return key
 * order. With a partition key everything happens on one shard.
 */
class OxiaMetadataStoreMultiShardTest {

    @RegisterExtension
    static final OxiaServerExtension OXIA = new OxiaServerExtension(4);

    private OxiaMetadataStore store;

    @BeforeEach
    void open() {
        store = OxiaMetadataStore.open(OxiaMetadataStoreConfig.of(OXIA.serviceAddress()));
        join(store.deleteRange("", END_OF_KEYS, Optional.empty()));
    }

    @AfterEach
    void close() {
        store.close();
    }

    @Test
    void scansWithoutPartitionKeyAreInKeyOrderAcrossShards() {
        List<String> keys = new ArrayList<>(List.of(
                "a", "a-1", "/a", "/a-1", "/ab", "/z", "/é", "/Ａ", "/😀", "/a/", "/a/b", "/a//", "/b/c", "/a/b/c"));
        for (int i = 0; i < 40; i++) {
            keys.add("/k/" + (char) ('a' + i % 26) + i);
        }
        List<CompletableFuture<PutResult>> puts = new ArrayList<>();
        for (String k : keys) {
            puts.add(store.put(k, bytes(k)));
        }
        puts.forEach(MetadataStoreConformanceTest::join);
        List<String> expected = new ArrayList<>(keys);
        Collections.shuffle(expected, new Random(1));
        expected.sort(KeyOrder.COMPARATOR);

        assertThat(join(store.list("", END_OF_KEYS, Optional.empty()))).containsExactlyElementsOf(expected);
        assertThat(join(store.rangeScan("", END_OF_KEYS, Optional.empty(), 0)))
                .extracting(Record::key)
                .containsExactlyElementsOf(expected);
        assertThat(join(store.rangeScan("/k/", "/k//", Optional.empty(), 3)))
                .extracting(Record::key)
                .containsExactlyElementsOf(expected.stream()
                        .filter(k -> k.startsWith("/k/"))
                        .limit(3)
                        .toList());
    }

    @Test
    void withAPartitionKeyComparisonsAndSequencesStayOnOneShard() {
        String pk = "partition-1";
        PutOptions on = PutOptions.DEFAULT.partitionKey(pk);
        join(store.put("/r/a/b/c", bytes("deep"), on));
        join(store.put("/r/b/c", bytes("shallow"), on));
        GetOptions get = GetOptions.DEFAULT.partitionKey(pk);
        assertThat(join(store.get("/r/z/z/z", get.comparison(Comparison.FLOOR))))
                .map(Record::key)
                .contains("/r/a/b/c");
        assertThat(join(store.get("/r/b/c", get.comparison(Comparison.HIGHER))))
                .map(Record::key)
                .contains("/r/a/b/c");
        assertThat(join(store.list("/r/", "/r/~/~/~", Optional.of(pk)))).containsExactly("/r/b/c", "/r/a/b/c");

        for (int i = 1; i <= 5; i++) {
            assertThat(join(store.put("/seq", bytes("s"), on.sequenceKeyDeltas(1)))
                            .key())
                    .isEqualTo(String.format("/seq-%020d", i));
        }
    }

    @Test
    void listenersHearEveryShard() throws Exception {
        Set<String> created = ConcurrentHashMap.newKeySet();
        try (OxiaMetadataStore writer = OxiaMetadataStore.open(OxiaMetadataStoreConfig.of(OXIA.serviceAddress()));
                AutoCloseable handle = store.addListener(n -> {
                    if (n instanceof Notification.KeyCreated c) {
                        created.add(c.key());
                    }
                })) {
            // Until every shard's subscription is live some keys may be missed: write fresh keys until one
            // whole round of them (which lands on every shard) is heard.
            for (int round = 0; round < 10; round++) {
                List<String> batch = new ArrayList<>();
                for (int i = 0; i < 16; i++) {
                    batch.add("/n/" + round + "/" + i);
                }
                List<CompletableFuture<PutResult>> puts = new ArrayList<>();
                batch.forEach(k -> puts.add(writer.put(k, bytes("x"))));
                puts.forEach(MetadataStoreConformanceTest::join);
                long deadline =
                        System.nanoTime() + java.time.Duration.ofSeconds(2).toNanos();
                while (System.nanoTime() < deadline) {
                    if (created.containsAll(batch)) {
                        return;
                    }
                    Thread.sleep(20);
                }
            }
            throw new AssertionError("never heard a whole round of keys; heard " + created);
        }
    }
}
