package dev.lakestream.core.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lakestream.core.metadata.MetadataStore;
import dev.lakestream.core.metadata.oxia.OxiaMetadataStore;
import dev.lakestream.core.metadata.oxia.OxiaMetadataStoreConfig;
import dev.lakestream.testkit.OxiaServerExtension;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The collision that makes registration necessary, as it really happens: on an Oxia namespace of several shards the
 * previous version's generator {@code <root>/stream-id-generator} and Ursa's {@code /stream-id-generator} count on
 * different shards, from zero each, so Ursa's generator hands out ids the old one handed out already.
 */
class OxiaMultiShardStreamIdsTest {

    @RegisterExtension
    static final OxiaServerExtension OXIA = new OxiaServerExtension(4);

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void afterAnUpgradeNewIdsOfTwoClientsAvoidTheOldOnesThoughTheGeneratorsCountOnDifferentShards() throws Exception {
        try (MetadataStore one = OxiaMetadataStore.open(OxiaMetadataStoreConfig.of(OXIA.serviceAddress()));
                MetadataStore two = OxiaMetadataStore.open(OxiaMetadataStoreConfig.of(OXIA.serviceAddress()))) {
            String root = rootWhoseGeneratorIsNotOnTheShardOf(one, "/stream-id-generator");
            PreviousVersionCatalog previous = new PreviousVersionCatalog(one, root);
            Map<String, Long> old = new LinkedHashMap<>();
            for (int i = 0; i < 30; i++) {
                old.put("old-" + i, previous.create("ns", "old-" + i));
            }

            StreamCatalog first = new StreamCatalog(one, root);
            StreamCatalog second = new StreamCatalog(two, root);
            List<CompletableFuture<StreamInfo>> creates = new ArrayList<>();
            for (int i = 0; i < 15; i++) {
                creates.add(first.create("ns", "new-a" + i, Map.of()));
                creates.add(second.create("ns", "new-b" + i, Map.of()));
            }
            List<StreamInfo> created =
                    creates.stream().map(CompletableFuture::join).toList();

            Set<Long> ids = new HashSet<>(old.values());
            for (StreamInfo s : created) {
                assertThat(ids.add(s.id()))
                        .as("id %s of %s handed out twice", s.id(), s.fullName())
                        .isTrue();
            }
            List<String> hit = new ArrayList<>();
            for (Map.Entry<String, Long> s : old.entrySet()) {
                // Before any lookup of an old stream: only a draw that hit its id registered it.
                Optional<Map<?, ?>> registration =
                        one.get("/stream-id/" + s.getValue()).join().map(OxiaMultiShardStreamIdsTest::json);
                registration.ifPresent(r -> {
                    assertThat(r).isEqualTo(Map.of("key", "ns/" + s.getKey()));
                    hit.add(s.getKey());
                });
            }
            assertThat(hit).as("Ursa's generator handed out old ids").isNotEmpty();
            for (Map.Entry<String, Long> s : old.entrySet()) {
                assertThat(first.open("ns", s.getKey()).join().id()).isEqualTo(s.getValue());
            }
        }
    }

    /**
     * A root whose {@code <root>/stream-id-generator} is on another shard than {@code key}: version ids count per
     * shard, so a put of {@code key} between two puts of the generator moves the generator's version by 2 only on the
     * same shard (nothing else writes to this fresh server).
     */
    private static String rootWhoseGeneratorIsNotOnTheShardOf(MetadataStore store, String key) {
        for (int i = 0; i < 100; i++) {
            String root = "/multi-shard-" + i;
            String generator = root + "/stream-id-generator";
            long before = store.put(generator, new byte[0]).join().version().versionId();
            store.put(key, new byte[0]).join();
            long after = store.put(generator, new byte[0]).join().version().versionId();
            if (after - before == 1) {
                return root;
            }
        }
        throw new AssertionError("no root of 100 put its generator on another shard than " + key);
    }

    private static Map<?, ?> json(dev.lakestream.core.metadata.Record r) {
        try {
            return JSON.readValue(r.value(), Map.class);
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
    }
}
