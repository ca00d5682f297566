package dev.lakestream.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lakestream.core.index.IndexKey;
import dev.lakestream.core.index.IndexValue;
import dev.lakestream.core.log.EntryUnreadableException;
import dev.lakestream.core.log.LogEntry;
import dev.lakestream.core.metadata.MetadataStore;
import dev.lakestream.core.metadata.PutOptions;
import dev.lakestream.core.metadata.embedded.EmbeddedMetadataStore;
import dev.lakestream.core.metadata.embedded.EmbeddedMetadataStoreConfig;
import dev.lakestream.core.objectstore.ObjectStore;
import dev.lakestream.core.objectstore.fs.FileSystemObjectStore;
import dev.lakestream.core.objectstore.fs.FileSystemObjectStoreConfig;
import dev.lakestream.core.wal.ReaderConfig;
import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Streams written the way Ursa's writer writes them, read by our reader entry for entry: WAL objects laid out by hand
 * here (not by our writer's code), index records whose {@code file_size} is the object's data section and which carry
 * no {@code lakestream.indexLength}; several streams per object, one-entry and many-entry records, small objects (read
 * whole) and large ones. And objects of this project's earlier versions, whose {@code file_size} was the whole object,
 * read whole and by range.
 */
class UrsaWrittenStreamsTest {

    @TempDir
    Path dir;

    private ObjectStore objects;
    private MetadataStore metadata;

    @BeforeEach
    void open() {
        objects = new FileSystemObjectStore(FileSystemObjectStoreConfig.of(dir.resolve("objects")));
        metadata = EmbeddedMetadataStore.open(EmbeddedMetadataStoreConfig.of(dir.resolve("metadata")));
    }

    @AfterEach
    void close() {
        metadata.close();
        objects.close();
    }

    /** One entry a fixture writes: its stream, records and bytes. */
    record Entry(long streamId, int records, byte[] payload) {}

    /** The bytes of a WAL object as Ursa lays it out: int32 index length, the v3 index, then the entries. */
    static byte[] walObject(List<Entry> entries) {
        Map<Long, List<long[]>> byStream = new LinkedHashMap<>();
        ByteArrayOutputStream data = new ByteArrayOutputStream();
        for (Entry e : entries) {
            byStream.computeIfAbsent(e.streamId(), k -> new ArrayList<>())
                    .add(new long[] {data.size(), e.payload().length, e.records()});
            data.writeBytes(e.payload());
        }
        ByteArrayOutputStream index = new ByteArrayOutputStream();
        index.writeBytes(ByteBuffer.allocate(4).putInt(3).array());
        for (Map.Entry<Long, List<long[]>> s : byStream.entrySet()) {
            index.writeBytes(ByteBuffer.allocate(8).putLong(s.getKey()).array());
            leb128(index, s.getValue().size());
            for (long[] loc : s.getValue()) {
                leb128(index, loc[0]);
                leb128(index, loc[1]);
                leb128(index, loc[2]);
            }
        }
        ByteArrayOutputStream object = new ByteArrayOutputStream();
        object.writeBytes(ByteBuffer.allocate(4).putInt(index.size()).array());
        object.writeBytes(index.toByteArray());
        object.writeBytes(data.toByteArray());
        return object.toByteArray();
    }

    static void leb128(ByteArrayOutputStream out, long v) {
        while ((v & ~0x7FL) != 0) {
            out.write((int) ((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        out.write((int) v);
    }

    static int indexLength(byte[] object) {
        return ByteBuffer.wrap(object).getInt();
    }

    /** Where a fixture's objects go: through our store, or as Ursa's filesystem storage lays them down. */
    enum Storage {
        OUR_STORE,
        URSA_FILES
    }

    /**
     * Stores the object and commits each stream's record as Ursa does (sequence-key put of [records, bytes]). As
     * {@link Storage#URSA_FILES} the object is written by hand beside our store's files: its bytes as the file, its
     * CRC32C in decimal in the sidecar {@code <file>.crc32c}.
     */
    private void write(String key, List<Entry> entries, boolean legacy, Storage storage) {
        byte[] object = walObject(entries);
        if (storage == Storage.URSA_FILES) {
            try {
                Path file = dir.resolve("objects").resolve(key);
                Files.createDirectories(file.getParent());
                Files.write(file, object);
                CRC32C crc = new CRC32C();
                crc.update(object);
                Files.writeString(file.resolveSibling(file.getFileName() + ".crc32c"), Long.toString(crc.getValue()));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        } else {
            objects.put(key, ByteBuffer.wrap(object)).join();
        }
        int indexLength = indexLength(object);
        long dataSection = object.length - 4L - indexLength;
        Map<Long, List<Entry>> byStream = new LinkedHashMap<>();
        for (Entry e : entries) {
            byStream.computeIfAbsent(e.streamId(), k -> new ArrayList<>()).add(e);
        }
        for (Map.Entry<Long, List<Entry>> s : byStream.entrySet()) {
            int[] counts = s.getValue().stream().mapToInt(Entry::records).toArray();
            long records = 0;
            long bytes = 0;
            for (Entry e : s.getValue()) {
                records += e.records();
                bytes += e.payload().length;
            }
            // Ursa: file_size is the data section, no extra data. This project before 2026-12: the whole object,
            // with the index length as extra data.
            IndexValue value = new IndexValue(
                    key,
                    byStream.size() == 1,
                    records,
                    bytes,
                    legacy ? object.length : dataSection,
                    counts,
                    legacy ? Map.of(IndexValue.EXTRA_INDEX_LENGTH, Integer.toString(indexLength)) : Map.of());
            metadata.put(
                            IndexKey.prefix(s.getKey()),
                            value.encode(),
                            PutOptions.DEFAULT
                                    .partitionKey(IndexKey.partitionKey(s.getKey()))
                                    .sequenceKeyDeltas(records, bytes))
                    .join();
        }
    }

    static byte[] payload(long streamId, int i, int size) {
        byte[] b = new byte[size];
        byte[] head = ("s" + streamId + "e" + i + "|").getBytes(StandardCharsets.UTF_8);
        for (int k = 0; k < size; k++) {
            b[k] = k < head.length ? head[k] : (byte) (streamId * 7 + i * 13 + k);
        }
        return b;
    }

    /** Writes objects of streams 11, 12 and 13 and returns each stream's entries in order. */
    private Map<Long, List<Entry>> writeFixtures(boolean legacy) {
        return writeFixtures(legacy, Storage.OUR_STORE);
    }

    private Map<Long, List<Entry>> writeFixtures(boolean legacy, Storage storage) {
        Map<Long, List<Entry>> expected = new LinkedHashMap<>();
        int[] sizes = {1, 300, 40_000, 700_000, 5, 1_500_000, 20};
        for (int o = 0; o < 6; o++) {
            List<Entry> object = new ArrayList<>();
            for (long sid = 11; sid <= 13; sid++) {
                // Stream 11: one entry per record; 12: many; 13: only in some objects (COMPACT when alone).
                int n = sid == 11 ? 1 : sid == 12 ? 4 : (o % 3 == 0 ? 3 : 0);
                if (o == 5 && sid != 13) {
                    n = 0;
                }
                for (int i = 0; i < n; i++) {
                    List<Entry> rows = expected.computeIfAbsent(sid, k -> new ArrayList<>());
                    int size = sizes[(rows.size() + (int) sid) % sizes.length];
                    Entry e = new Entry(sid, 1 + rows.size() % 3, payload(sid, rows.size(), size));
                    rows.add(e);
                    object.add(e);
                }
            }
            if (!object.isEmpty()) {
                write(String.format("2026/12/03/10/00/%02d/fixture-%d", o, o), object, legacy, storage);
            }
        }
        return expected;
    }

    private static void readsEveryEntry(Lakestream log, Map<Long, List<Entry>> expected) {
        for (Map.Entry<Long, List<Entry>> s : expected.entrySet()) {
            StreamLog stream = log.stream(s.getKey());
            long next = 0;
            int at = 0;
            while (true) {
                List<LogEntry> got = stream.read(next, 3, 1 << 20).join();
                if (got.isEmpty()) {
                    break;
                }
                for (LogEntry e : got) {
                    try {
                        Entry want = s.getValue().get(at++);
                        assertThat(e.offset())
                                .as("stream %s entry %s", s.getKey(), at - 1)
                                .isEqualTo(next);
                        assertThat(e.records()).isEqualTo(want.records());
                        byte[] bytes = new byte[e.payload().readableBytes()];
                        e.payload().getBytes(e.payload().readerIndex(), bytes);
                        assertThat(bytes)
                                .as("stream %s entry %s", s.getKey(), at - 1)
                                .isEqualTo(want.payload());
                        next = e.endOffset();
                    } finally {
                        e.payload().release();
                    }
                }
            }
            assertThat(at)
                    .as("entries of stream %s", s.getKey())
                    .isEqualTo(s.getValue().size());
        }
    }

    private Lakestream reader(ReaderConfig config) {
        return Lakestream.open(objects, metadata, LakestreamConfig.DEFAULT.withReader(config));
    }

    @Test
    void streamsUrsaWroteAreReadEntryForEntry() {
        Map<Long, List<Entry>> expected = writeFixtures(false);
        try (Lakestream log = reader(ReaderConfig.DEFAULT)) {
            readsEveryEntry(log, expected);
        }
        // Objects read whole only, without a cache (every read fetches and checks the object again).
        try (Lakestream log = reader(new ReaderConfig(0, Long.MAX_VALUE, 0, 0))) {
            readsEveryEntry(log, expected);
        }
    }

    @Test
    void streamsUrsaWroteToItsFilesystemStorageAreReadWholeAndByRange() {
        Map<Long, List<Entry>> expected = writeFixtures(false, Storage.URSA_FILES);
        // Whole objects (checked against their sidecars), without a cache, then ranged reads of the large ones.
        for (ReaderConfig config : List.of(
                ReaderConfig.DEFAULT,
                new ReaderConfig(0, Long.MAX_VALUE, 0, 0),
                new ReaderConfig(64L << 20, 0, 4, 1 << 20))) {
            try (Lakestream log = reader(config)) {
                readsEveryEntry(log, expected);
            }
        }
        // The store lists each object once, at its file's size, and no sidecar.
        var listed = objects.list("2026/", null, 100).join().objects();
        assertThat(listed).hasSize(5).allSatisfy(o -> assertThat(o.key()).doesNotEndWith(".crc32c"));
        for (var o : listed) {
            assertThat(o.size())
                    .as(o.key())
                    .isEqualTo(dir.resolve("objects").resolve(o.key()).toFile().length());
        }
    }

    @Test
    void objectsOfTheEarlierFormatAreReadWholeAndByRange() {
        Map<Long, List<Entry>> expected = writeFixtures(true);
        try (Lakestream log = reader(ReaderConfig.DEFAULT)) {
            readsEveryEntry(log, expected);
        }
        try (Lakestream log = reader(new ReaderConfig(64L << 20, 0, 4, 1 << 20))) {
            readsEveryEntry(log, expected);
        }
    }

    @Test
    void ourWriterWritesUrsasFileSizeAndReadsItWholeAndByRange() {
        Map<Long, List<byte[]>> written = new LinkedHashMap<>();
        try (Lakestream log = Lakestream.open(objects, metadata, LakestreamConfig.DEFAULT)) {
            StreamLog stream =
                    log.stream(log.catalog().create("t", "ours", Map.of()).join());
            List<byte[]> rows = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                byte[] p = payload(stream.id(), i, i % 5 == 4 ? 1_200_000 : 100 + i);
                rows.add(p);
                stream.append(1, Unpooled.wrappedBuffer(p)).join();
            }
            written.put(stream.id(), rows);
            var records = metadata.rangeScan(
                            IndexKey.lowest(stream.id()),
                            IndexKey.highest(stream.id()),
                            java.util.Optional.of(IndexKey.partitionKey(stream.id())),
                            0)
                    .join();
            assertThat(records).isNotEmpty();
            for (var r : records) {
                IndexValue v = IndexValue.decode(r.value(), r.key());
                ByteBuffer got = objects.get(v.location()).join();
                byte[] object = new byte[got.remaining()];
                got.get(object);
                int indexLength = indexLength(object);
                assertThat(v.fileSize())
                        .as("file_size of %s: its data section", v.location())
                        .isEqualTo(object.length - 4L - indexLength);
            }
        }
        Map<Long, List<Entry>> expected = new LinkedHashMap<>();
        written.forEach((sid, rows) ->
                expected.put(sid, rows.stream().map(p -> new Entry(sid, 1, p)).toList()));
        for (ReaderConfig config : List.of(ReaderConfig.DEFAULT, new ReaderConfig(64L << 20, 0, 4, 1 << 20))) {
            try (Lakestream log = reader(config)) {
                readsEveryEntry(log, expected);
            }
        }
    }

    @Test
    void aFileSizeThatFitsNeitherMeaningNamesTheObject() {
        byte[] object = walObject(List.of(new Entry(21, 1, payload(21, 0, 100))));
        objects.put("bad/object", ByteBuffer.wrap(object)).join();
        IndexValue value = new IndexValue("bad/object", true, 1, 100, 77, new int[] {1}, Map.of());
        metadata.put(
                        IndexKey.prefix(21),
                        value.encode(),
                        PutOptions.DEFAULT
                                .partitionKey(IndexKey.partitionKey(21))
                                .sequenceKeyDeltas(1, 100))
                .join();
        try (Lakestream log = reader(ReaderConfig.DEFAULT)) {
            assertThatThrownBy(() -> log.stream(21).read(0, 10, 1 << 20).join())
                    .isInstanceOf(CompletionException.class)
                    .cause()
                    .isInstanceOf(EntryUnreadableException.class)
                    .hasMessageContaining("bad/object")
                    .hasMessageContaining("file_size 77");
        }
    }
}
