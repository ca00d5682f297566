package dev.lakestream.core.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lakestream.core.Lakestream;
import dev.lakestream.core.LakestreamConfig;
import dev.lakestream.core.StreamLog;
import dev.lakestream.core.log.LogEntry;
import dev.lakestream.core.metadata.MetadataStore;
import dev.lakestream.core.metadata.Record;
import dev.lakestream.core.objectstore.ObjectStore;
import dev.lakestream.core.objectstore.fs.FileSystemObjectStore;
import dev.lakestream.core.objectstore.fs.FileSystemObjectStoreConfig;
import dev.lakestream.core.wal.WalWriterConfig;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Stream ids drawn from Ursa's generator {@code /stream-id-generator} and registered at {@code /stream-id/<id>},
 * unique whichever generator handed an id out, and the upgrade from the previous version (ids from
 * {@code <root>/stream-id-generator}, no registrations). The subclasses run it on the embedded store and on the real
 * Oxia server (one shard).
 *
 * <p>Several tests make a generator hand out an id that is taken already. Version ids count up by one per
 * successful put across the whole store (the embedded store) or shard (Oxia; one shard here) and a refused
 * conditional put takes none, so the next version id is known: {@link #lastVersion()} reads it with a probe put,
 * and {@link #pumpGeneratorTo} puts the generator key until it is one below an id, as Ursa drawing ids would.
 */
abstract class StreamIdsTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final AtomicLong ROOTS = new AtomicLong();
    private static final LakestreamConfig FAST = LakestreamConfig.DEFAULT.withWriter(
            new WalWriterConfig(256 << 10, Duration.ofMillis(5), 64L << 20, WalWriterConfig.WhenFull.WAIT));

    @TempDir
    Path dir;

    /** The metadata store of one test; tests of one class may share its server (each has its own root). */
    protected abstract MetadataStore openMetadata() throws Exception;

    /** A second client on the same data, as another process would have (or the same one). */
    protected abstract MetadataStore secondClient(MetadataStore first) throws Exception;

    protected MetadataStore metadata;
    private ObjectStore objects;
    private String root;

    @BeforeEach
    void open() throws Exception {
        metadata = openMetadata();
        objects = new FileSystemObjectStore(FileSystemObjectStoreConfig.of(dir.resolve("objects")));
        root = "/ids-test-" + ROOTS.incrementAndGet() + "-" + System.nanoTime();
    }

    @AfterEach
    void close() {
        metadata.close();
        objects.close();
    }

    @Test
    void newIdsComeFromUrsasGeneratorAndAreRegisteredForTheirStream() throws Exception {
        StreamCatalog catalog = new StreamCatalog(metadata, root);

        StreamInfo info = catalog.create("ns", "a/b", Map.of()).join();

        Record generator = metadata.get("/stream-id-generator").join().orElseThrow();
        assertThat(generator.version().versionId()).isEqualTo(info.id());
        assertThat(metadata.get(root + "/stream-id-generator").join())
                .as("the previous version's generator is no longer written")
                .isEmpty();
        Record registration = metadata.get("/stream-id/" + info.id()).join().orElseThrow();
        assertThat(json(registration)).isEqualTo(Map.of("key", "ns/a/b"));
        assertThat(registration.version().modificationsCount()).isZero();
        assertThat(catalog.nameOf(info.id()).join()).contains(Map.of("namespace", "ns", "name", "a/b"));
        assertThat(catalog.allIds().join()).containsExactly(info.id());
    }

    @Test
    void anIdRegisteredByUrsaIsSkippedAndItsRegistrationLeftAlone() throws Exception {
        StreamCatalog catalog = new StreamCatalog(metadata, root);
        long taken = lastVersion() + 2; // the registration below takes lastVersion() + 1
        byte[] ursas = JSON.writeValueAsBytes(Map.of("key", "ursa-ns/ursa-stream"));
        metadata.put("/stream-id/" + taken, ursas).join();

        StreamInfo info = catalog.create("ns", "s", Map.of()).join();

        assertThat(info.id()).isEqualTo(taken + 1);
        Record ursa = metadata.get("/stream-id/" + taken).join().orElseThrow();
        assertThat(ursa.value()).isEqualTo(ursas);
        assertThat(ursa.version().modificationsCount()).isZero();
        assertThat(metadata.get(root + "/stream-ids/" + taken).join())
                .as("no back-pointer for an id that is not ours: GC would clear that id's index")
                .isEmpty();
        assertThat(json(metadata.get("/stream-id/" + info.id()).join().orElseThrow()))
                .isEqualTo(Map.of("key", "ns/s"));
    }

    @Test
    void aCreateGivesUpAfterItsDrawsNamingTheGeneratorAndTheNextOneDrawsFurther() throws Exception {
        long first = lastVersion() + 4; // the three registrations take the three versions before it
        for (long id = first; id < first + 3; id++) {
            metadata.put("/stream-id/" + id, JSON.writeValueAsBytes(Map.of("key", "ursa/" + id)))
                    .join();
        }

        assertThatThrownBy(() -> new StreamCatalog(metadata, root, 3)
                        .create("ns", "s", Map.of())
                        .join())
                .isInstanceOf(CompletionException.class)
                .cause()
                .isInstanceOf(CatalogException.class)
                .hasMessageContaining("ns/s")
                .hasMessageContaining("'/stream-id-generator'")
                .hasMessageContaining("3 ids")
                .satisfies(
                        e -> assertThat(((CatalogException) e).reason()).isEqualTo(CatalogException.Reason.NO_FREE_ID));
        StreamCatalog catalog = new StreamCatalog(metadata, root);
        assertThat(catalog.lookup("ns", "s").join()).isEmpty();
        assertThat(catalog.allIds().join()).isEmpty();

        assertThat(catalog.create("ns", "s", Map.of()).join().id()).isEqualTo(first + 3);
    }

    @Test
    void concurrentCreatesOfTwoClientsNeverShareAnIdNorTakeARegisteredOne() throws Exception {
        // Another system registered the 200 ids after the 200 versions its own registrations take: the
        // generator's next 200 draws all hit a registered id.
        long base = lastVersion();
        Set<Long> registeredElsewhere = new HashSet<>();
        for (long id = base + 201; id <= base + 400; id++) {
            metadata.put("/stream-id/" + id, JSON.writeValueAsBytes(Map.of("key", "other/" + id)))
                    .join();
            registeredElsewhere.add(id);
        }
        try (MetadataStore second = secondClient(metadata)) {
            StreamCatalog one = new StreamCatalog(metadata, root);
            StreamCatalog two = new StreamCatalog(second, root);
            List<CompletableFuture<StreamInfo>> creates = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                creates.add(one.create("ns", "one-" + i, Map.of()));
                creates.add(two.create("ns", "two-" + i, Map.of()));
            }
            List<StreamInfo> created =
                    creates.stream().map(CompletableFuture::join).toList();

            Set<Long> ids = new HashSet<>();
            for (StreamInfo s : created) {
                assertThat(ids.add(s.id())).as("id %s handed out twice", s.id()).isTrue();
                assertThat(registeredElsewhere).doesNotContain(s.id());
                assertThat(json(metadata.get("/stream-id/" + s.id()).join().orElseThrow()))
                        .isEqualTo(Map.of("key", s.fullName()));
            }
            assertThat(ids).allMatch(id -> id > base + 400, "above the registered ids");
            assertThat(one.allIds().join()).containsExactlyInAnyOrderElementsOf(ids);
        }
    }

    @Test
    void aDeletedStreamKeepsItsRegistrationAndItsNameGetsANewId() throws Exception {
        StreamCatalog catalog = new StreamCatalog(metadata, root);
        StreamInfo first = catalog.create("ns", "s", Map.of()).join();

        catalog.delete("ns", "s").join();
        StreamInfo second = catalog.create("ns", "s", Map.of()).join();

        assertThat(second.id()).isGreaterThan(first.id());
        assertThat(json(metadata.get("/stream-id/" + first.id()).join().orElseThrow()))
                .as("kept, so no one registering ids hands this one out again")
                .isEqualTo(Map.of("key", "ns/s"));
        assertThat(catalog.isLive(first.id()).join()).isFalse();
        assertThat(catalog.isLive(second.id()).join()).isTrue();
    }

    /**
     * A deployment written by the previous version: streams with entries, their ids from
     * {@code <root>/stream-id-generator}, two drawn as it drew them and five at the very ids Ursa's generator
     * hands out next (as when the two generator keys live on different Oxia shards). Opened by this version every
     * old stream keeps its id and entries, gets registered, and new streams get ids none of the old ones has.
     */
    @Test
    void upgradeKeepsTheOldIdsAndEntriesAndNewIdsAvoidThemWhenTheGeneratorsCollide() throws Exception {
        PreviousVersionCatalog previous = new PreviousVersionCatalog(metadata, root);
        Map<String, Long> old = new LinkedHashMap<>();
        old.put("drawn-0", previous.create("ns", "drawn-0"));
        old.put("drawn-1", previous.create("ns", "drawn-1"));
        long collide = lastVersion() + 200;
        for (int i = 0; i < 5; i++) {
            previous.createWithId("ns", "colliding-" + i, collide + i);
            old.put("colliding-" + i, collide + i);
        }
        try (Lakestream before = Lakestream.open(objects, metadata, FAST.withMetadataRoot(root))) {
            for (Map.Entry<String, Long> s : old.entrySet()) {
                StreamLog stream = before.stream(s.getValue());
                for (int i = 0; i < 3; i++) {
                    stream.append(1, bytes(s.getKey() + "-" + i)).join();
                }
            }
        }
        pumpGeneratorTo(collide);

        try (Lakestream after = Lakestream.open(objects, metadata, FAST.withMetadataRoot(root))) {
            StreamCatalog catalog = after.catalog();
            List<StreamInfo> created = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                created.add(catalog.create("ns", "new-" + i, Map.of()).join());
            }

            for (StreamInfo s : created) {
                assertThat(old.values()).as("new stream %s", s.fullName()).doesNotContain(s.id());
            }
            assertThat(created).extracting(StreamInfo::id).doesNotHaveDuplicates();
            assertThat(json(metadata.get("/stream-id/" + collide).join().orElseThrow()))
                    .as("the first draw hit an old id, and registered it for its old stream")
                    .isEqualTo(Map.of("key", "ns/colliding-0"));
            for (Map.Entry<String, Long> s : old.entrySet()) {
                StreamInfo info = catalog.open("ns", s.getKey()).join();
                assertThat(info.id()).isEqualTo(s.getValue());
                assertThat(info.properties()).containsEntry("written-by", "previous version");
                assertThat(texts(after.stream(info).read(0, 100, 1 << 20).join()))
                        .containsExactly(s.getKey() + "-0", s.getKey() + "-1", s.getKey() + "-2");
                assertThat(json(metadata.get("/stream-id/" + info.id()).join().orElseThrow()))
                        .as("registered when opened")
                        .isEqualTo(Map.of("key", "ns/" + s.getKey()));
                assertThat(catalog.isLive(info.id()).join()).isTrue();
            }
            for (StreamInfo s : created) {
                StreamLog stream = after.stream(s);
                stream.append(1, bytes(s.name())).join();
                assertThat(texts(stream.read(0, 100, 1 << 20).join())).containsExactly(s.name());
            }
            assertThat(catalog.allIds().join())
                    .containsExactlyInAnyOrderElementsOf(concat(
                            old.values(), created.stream().map(StreamInfo::id).toList()));
        }
    }

    /** The version id of a put made now: the next put on this store (or shard) gets this plus one. */
    protected long lastVersion() {
        return metadata.put("/ids-test-probe", new byte[0]).join().version().versionId();
    }

    /** Draws from the generator until the next draw hands out {@code id}. */
    private void pumpGeneratorTo(long id) {
        long v = lastVersion();
        assertThat(v).as("the set-up took fewer versions than planned").isLessThan(id - 1);
        while (v < id - 1) {
            v = metadata.put("/stream-id-generator", new byte[0])
                    .join()
                    .version()
                    .versionId();
        }
        assertThat(v).isEqualTo(id - 1);
    }

    private static Map<?, ?> json(Record r) throws Exception {
        return JSON.readValue(r.value(), Map.class);
    }

    private static io.netty.buffer.ByteBuf bytes(String s) {
        return Unpooled.wrappedBuffer(s.getBytes(StandardCharsets.UTF_8));
    }

    private static List<String> texts(List<LogEntry> entries) {
        List<String> out = new ArrayList<>();
        for (LogEntry e : entries) {
            out.add(e.payload().toString(StandardCharsets.UTF_8));
            e.payload().release();
        }
        return out;
    }

    private static List<Long> concat(java.util.Collection<Long> a, List<Long> b) {
        List<Long> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }
}
