package dev.lakestream.segments;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lakestream.core.Lakestream;
import dev.lakestream.core.LakestreamConfig;
import dev.lakestream.core.StreamLog;
import dev.lakestream.core.catalog.StreamInfo;
import dev.lakestream.core.compaction.SegmentSwitch;
import dev.lakestream.core.index.IndexKey;
import dev.lakestream.core.index.IndexRecord;
import dev.lakestream.core.index.IndexValue;
import dev.lakestream.core.index.OffsetIndex;
import dev.lakestream.core.log.LogEntry;
import dev.lakestream.core.metadata.DeleteOptions;
import dev.lakestream.core.metadata.MetadataStore;
import dev.lakestream.core.metadata.PutOptions;
import dev.lakestream.core.metadata.Record;
import dev.lakestream.core.metadata.embedded.EmbeddedMetadataStore;
import dev.lakestream.core.metadata.embedded.EmbeddedMetadataStoreConfig;
import dev.lakestream.core.objectstore.ObjectUpload;
import dev.lakestream.core.objectstore.fs.FileSystemObjectStore;
import dev.lakestream.core.objectstore.fs.FileSystemObjectStoreConfig;
import dev.lakestream.core.segment.SegmentFile;
import dev.lakestream.core.segment.SegmentKeys;
import dev.lakestream.core.segment.SegmentWriter;
import dev.lakestream.core.wal.WalWriterConfig;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/layout.md is enough to replay a stream in another language: {@code src/test/python/read_stream.py}, written
 * from it with the Python standard library and pyarrow only, reads the filesystem store's directory and a dump of the
 * stream's index records (as the metadata store holds them: key, value, creation time) and prints every entry, through
 * WAL objects shared with other streams and Parquet segments, exactly as {@link StreamLog#read} returns them: offset,
 * records, length, CRC-32 of the bytes and timestamp. Also with a switch stopped after its overwrite, where WAL
 * records are left below a compacted record, and half-way through its deletes; each offset must still come once
 * (layout §2.4, §2.5).
 */
class IndependentPythonReaderTest {

    private static final LakestreamConfig CONFIG = LakestreamConfig.DEFAULT
            .withMetadataRoot("/python-reader")
            // Objects of up to 4 MiB, flushed only when full or 30 ms after their first append: several entries of
            // several streams per object.
            .withWriter(new WalWriterConfig(4 << 20, Duration.ofMillis(30), 64L << 20, WalWriterConfig.WhenFull.WAIT)
                    .withFlushPolicy(WalWriterConfig.FlushPolicy.DEADLINE));
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private FileSystemObjectStore objects;
    private MetadataStore metadata;
    private Lakestream lakestream;
    private StreamLog stream;
    private final List<StreamLog> others = new ArrayList<>();
    private OffsetIndex index;
    private SegmentSwitch segmentSwitch;
    // Small row groups, so that segments hold several.
    private final ParquetSegmentFormat format = new ParquetSegmentFormat(
            ParquetSegmentOptions.DEFAULT.withRowGroupPayloadBytes(1 << 20), ValueColumns.NONE);
    private final Random random = new Random(20261204L);

    @BeforeEach
    void open() throws Exception {
        objects = new FileSystemObjectStore(FileSystemObjectStoreConfig.of(dir.resolve("objects")));
        metadata = EmbeddedMetadataStore.open(EmbeddedMetadataStoreConfig.of(dir.resolve("metadata")));
        lakestream = Lakestream.open(objects, metadata, CONFIG);
        stream = open("replayed");
        others.add(open("other-1"));
        others.add(open("other-2"));
        index = new OffsetIndex(metadata);
        segmentSwitch = new SegmentSwitch(metadata, CONFIG.metadataRoot());
    }

    @AfterEach
    void close() {
        lakestream.close();
        metadata.close();
        objects.close();
    }

    @Test
    void pythonReplaysWalRecordsAndParquetSegmentsAsTheJavaReaderReadsThem() throws Exception {
        appendRounds(14);
        List<IndexRecord> before = records();
        assertThat(before).hasSizeGreaterThan(10);
        // What the reader must meet: records of one entry (no entry_offsets) and of several, objects shared with
        // the other streams (NORMAL), and 1-byte and 2 MiB entries.
        assertThat(before).anyMatch(r -> r.value().entryCount() == 1);
        assertThat(before).anyMatch(r -> r.value().entryCount() > 2);
        assertThat(before).anyMatch(r -> !r.value().compact());
        // WAL, a segment, WAL, a segment, WAL (the tail).
        compact(1, 4);
        compact(4, 3);
        List<IndexRecord> after = records();
        assertThat(after.stream().filter(r -> r.value().isCompacted())).hasSize(2);
        assertThat(after.get(0).value().isCompacted()).isFalse();
        assertThat(after.get(after.size() - 1).value().isCompacted()).isFalse();

        List<String> java = javaRead(0);
        assertThat(java).hasSizeGreaterThan(40);
        assertThat(python(0)).containsExactlyElementsOf(java);
        // From inside the first segment: both start at the entry holding the offset.
        IndexRecord segment = after.get(1);
        long mid = (segment.startOffset() + segment.endOffset()) / 2;
        assertThat(python(mid)).containsExactlyElementsOf(javaRead(mid));
    }

    @Test
    void pythonReadsEachOffsetOnceBesideWalRecordsLeftBelowACompactedRecord() throws Exception {
        appendRounds(10);
        compact(0, 2);
        // A switch stopped after its overwrite (steps 1 and 3 only): WAL records stay below the compacted record.
        List<IndexRecord> run = records().subList(2, 7);
        assertThat(run).noneMatch(r -> r.value().isCompacted());
        SegmentFile file = segmentOf(run);
        IndexRecord last = run.get(run.size() - 1);
        String key = file.key();
        IndexValue value = IndexValue.compacted(
                key, format.fileType(), file.messages(), file.payloadBytes(), file.size(), file.entries(), Map.of());
        metadata.put(
                        last.key().format(),
                        value.encode(),
                        PutOptions.ifVersion(last.versionId()).partitionKey(IndexKey.partitionKey(stream.id())))
                .join();
        List<IndexRecord> now = records();
        long leftovers = now.stream()
                .filter(r -> !r.value().isCompacted()
                        && r.startOffset() >= file.firstOffset()
                        && r.endOffset() < file.endOffset())
                .count();
        assertThat(leftovers).isEqualTo(run.size() - 1);

        List<String> java = javaRead(0);
        assertThat(python(0)).containsExactlyElementsOf(java);
        // From inside the leftovers: the WAL records first, then the compacted record from their end.
        long inside = run.get(1).startOffset() + 1;
        assertThat(python(inside)).containsExactlyElementsOf(javaRead(inside));

        // Half-way through step 4 (the deletes land in any order): the first and third leftovers gone, the others
        // not. Both readers take the compacted record for the gone records' offsets, and read what they read before.
        for (int gone : new int[] {0, 2}) {
            IndexRecord r = run.get(gone);
            metadata.delete(
                            r.key().format(),
                            DeleteOptions.ifVersion(r.versionId()).partitionKey(IndexKey.partitionKey(stream.id())))
                    .join();
        }
        List<String> afterDeletes = javaRead(0);
        // The same entries; those of the gone records now carry the compacted record's time (layout §2.4).
        assertThat(withoutTime(afterDeletes)).containsExactlyElementsOf(withoutTime(java));
        assertThat(python(0)).containsExactlyElementsOf(afterDeletes);
        long first = run.get(0).startOffset();
        assertThat(python(first)).containsExactlyElementsOf(javaRead(first));
    }

    // ------------------------------------------------------------------ helpers

    /** The lines of a read without their last field, the entry's timestamp. */
    private static List<String> withoutTime(List<String> lines) {
        return lines.stream().map(l -> l.substring(0, l.lastIndexOf(' '))).toList();
    }

    private StreamLog open(String name) {
        StreamInfo info = lakestream.catalog().create("test", name, Map.of()).join();
        return lakestream.stream(info);
    }

    /**
     * Rounds of appends to the stream and the others at once, awaited per round: 1 to 6 entries of the stream per
     * round (so records of one entry and of several), of 1 B to 2 MiB and 1 to 3 records.
     */
    private void appendRounds(int rounds) {
        for (int round = 0; round < rounds; round++) {
            List<CompletableFuture<?>> pending = new ArrayList<>();
            int entries = round % 3 == 0 ? 1 : 2 + random.nextInt(5);
            for (int e = 0; e < entries; e++) {
                pending.add(stream.append(1 + random.nextInt(3), Unpooled.wrappedBuffer(payload(round, e))));
                StreamLog other = others.get(random.nextInt(others.size()));
                pending.add(other.append(1, Unpooled.wrappedBuffer(bytes(1 + random.nextInt(50_000)))));
            }
            CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).join();
        }
    }

    private byte[] payload(int round, int entry) {
        if (round == 1 && entry == 0) {
            return bytes(1);
        }
        if (round == 2 && entry == 1 || round == 5 && entry == 0) {
            return bytes(2 << 20);
        }
        return bytes(random.nextInt(8) == 0 ? 1 + random.nextInt(16) : 1 + random.nextInt(300_000));
    }

    private byte[] bytes(int size) {
        byte[] b = new byte[size];
        random.nextBytes(b);
        return b;
    }

    private List<IndexRecord> records() {
        return index.recordsFrom(stream.id(), 0, 100_000).join();
    }

    private IndexRecord compact(int first, int count) {
        List<IndexRecord> run = records().subList(first, first + count);
        assertThat(run).noneMatch(r -> r.value().isCompacted());
        return segmentSwitch.commit(run, segmentOf(run), format).join();
    }

    private SegmentFile segmentOf(List<IndexRecord> run) {
        long from = run.get(0).startOffset();
        long to = run.get(run.size() - 1).endOffset();
        ObjectUpload out = objects.newUpload(SegmentKeys.newKey(stream.id(), from, to, format.name()));
        try (SegmentWriter writer = format.newWriter(stream.id(), from, out)) {
            long at = from;
            while (at < to) {
                for (LogEntry e : stream.read(at, 100, 16 << 20).join()) {
                    if (e.offset() < to) {
                        writer.append(e);
                        at = e.endOffset();
                    }
                    e.payload().release();
                }
            }
            SegmentFile file = writer.finish();
            out.complete().join();
            return file;
        }
    }

    /** The Java reader's entries from {@code from} to the end, one line each as read_stream.py prints them. */
    private List<String> javaRead(long from) {
        List<String> lines = new ArrayList<>();
        long end = stream.endOffset().join();
        long at = from;
        while (at < end) {
            List<LogEntry> entries = stream.read(at, 7, 4 << 20).join();
            assertThat(entries).as("read at %d below the end %d", at, end).isNotEmpty();
            for (LogEntry e : entries) {
                try {
                    CRC32 crc = new CRC32();
                    crc.update(e.payload().nioBuffer());
                    lines.add(e.offset() + " " + e.records() + " " + e.payload().readableBytes() + " " + crc.getValue()
                            + " " + e.timestamp());
                    at = e.endOffset();
                } finally {
                    e.payload().release();
                }
            }
        }
        return lines;
    }

    /** read_stream.py's lines for a read from {@code from}, given the store's directory and the index dump. */
    private List<String> python(long from) throws Exception {
        Path python = PythonWithPyarrow.find();
        Path dump = dumpIndex();
        Path script = Path.of("src/test/python/read_stream.py").toAbsolutePath();
        Path stdout = dir.resolve("read-stream-" + from + ".out");
        Path stderr = dir.resolve("read-stream-" + from + ".err");
        Process p = new ProcessBuilder(List.of(
                        python.toString(),
                        script.toString(),
                        dump.toString(),
                        dir.resolve("objects").toString(),
                        Long.toString(from)))
                .redirectOutput(stdout.toFile())
                .redirectError(stderr.toFile())
                .start();
        assertThat(p.waitFor(300, TimeUnit.SECONDS))
                .as("read_stream.py finishes")
                .isTrue();
        assertThat(p.exitValue())
                .as("read_stream.py: %s", Files.readString(stderr, StandardCharsets.UTF_8))
                .isZero();
        return Files.readAllLines(stdout, StandardCharsets.UTF_8);
    }

    /** The stream's index records as the metadata store holds them: one range scan over the stream's keys. */
    private Path dumpIndex() throws Exception {
        List<Record> scanned = metadata.rangeScan(
                        IndexKey.lowest(stream.id()),
                        IndexKey.highest(stream.id()),
                        Optional.of(IndexKey.partitionKey(stream.id())),
                        0)
                .join();
        List<Map<String, Object>> out = new ArrayList<>();
        for (Record r : scanned) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("key", r.key());
            m.put("value_base64", Base64.getEncoder().encodeToString(r.value()));
            m.put("created", r.version().createdTimestamp());
            out.add(m);
        }
        Path dump = Files.createTempFile(dir, "index-", ".json");
        JSON.writerWithDefaultPrettyPrinter().writeValue(dump.toFile(), out);
        return dump;
    }
}
