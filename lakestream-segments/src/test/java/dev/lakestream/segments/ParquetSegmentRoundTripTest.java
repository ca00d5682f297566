package dev.lakestream.segments;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lakestream.core.index.IndexRecord;
import dev.lakestream.core.log.LogEntry;
import dev.lakestream.core.objectstore.fs.FileSystemObjectStore;
import dev.lakestream.core.objectstore.fs.FileSystemObjectStoreConfig;
import dev.lakestream.core.segment.SegmentFile;
import dev.lakestream.core.segment.SegmentReader;
import dev.lakestream.core.segment.SegmentWriter;
import dev.lakestream.segments.Segments.Entries;
import dev.lakestream.segments.Segments.Expected;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.schema.MessageType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Segments written and read back on a real object store (a directory): every read budget from every entry's offset and
 * from inside entries returns exactly the entries a reader must get; row groups end on entry boundaries, within their
 * size, with offset statistics; the footer holds the stream's metadata and our field ids.
 */
class ParquetSegmentRoundTripTest {

    private static final long STREAM = 42;
    private static final long TIMESTAMP = 1_780_000_000_000L;
    private static final long[] MAX_BYTES = {1, 1000, 64 << 10, 1 << 20, 64L << 20};
    private static final int[] MAX_ENTRIES = {1, 3, 1000};

    @TempDir
    Path dir;

    private FileSystemObjectStore objects;
    private final ByteBufAllocator allocator = PooledByteBufAllocator.DEFAULT;

    @BeforeEach
    void open() {
        objects = new FileSystemObjectStore(FileSystemObjectStoreConfig.of(dir));
    }

    @AfterEach
    void close() {
        objects.close();
    }

    /** 1 B to 8 MiB, mostly small: two of exactly 8 MiB and one of 8 MiB + 1 (bigger than a row group). */
    private static Entries mixed(long firstOffset) {
        return Segments.entries(STREAM, firstOffset, 34, 5, new Random(20261204L), (i, r) -> switch (i) {
            case 9, 20 -> 8 << 20;
            case 21 -> (8 << 20) + 1;
            default -> i % 7 == 0 ? 1 : i % 5 == 0 ? 100_000 + r.nextInt(900_000) : 1 + r.nextInt(10_000);
        });
    }

    @Test
    void everyBudgetFromEveryEntryAndFromInsideEntriesReturnsExactlyTheExpectedEntries() {
        Entries entries = mixed(1000);
        for (ParquetSegmentOptions options : List.of(
                ParquetSegmentOptions.DEFAULT, ParquetSegmentOptions.DEFAULT.withRowGroupPayloadBytes(256 << 10))) {
            for (ParquetSegmentReader.Limits limits :
                    List.of(ParquetSegmentReader.Limits.DEFAULT, new ParquetSegmentReader.Limits(0, 512, 4))) {
                ParquetSegmentFormat format = new ParquetSegmentFormat(options, ValueColumns.NONE, limits);
                Segments.Written file = Segments.write(format, entries);
                IndexRecord record = Segments.store(
                        objects,
                        "segments/42/rt-" + options.rowGroupPayloadBytes() + "-" + limits.wholeObjectBelow()
                                + ".parquet",
                        file,
                        TIMESTAMP);
                try (SegmentReader reader = format.openReader(objects, allocator)) {
                    for (long from : starts(entries.expected())) {
                        for (long maxBytes : MAX_BYTES) {
                            for (int maxEntries : MAX_ENTRIES) {
                                List<LogEntry> got = reader.read(record, from, maxEntries, maxBytes)
                                        .join();
                                assertThat(got).allSatisfy(e -> {
                                    assertThat(e.streamId()).isEqualTo(STREAM);
                                    assertThat(e.timestamp()).isEqualTo(TIMESTAMP);
                                });
                                assertThat(got.stream().map(Segments::row).toList())
                                        .as(
                                                "%s, %s: from %d, %d entries, %d bytes",
                                                options, limits, from, maxEntries, maxBytes)
                                        .isEqualTo(model(entries.expected(), from, maxEntries, maxBytes));
                            }
                        }
                    }
                    for (long maxBytes : MAX_BYTES) {
                        assertThat(readAll(reader, record, entries.firstOffset(), 7, maxBytes))
                                .containsExactlyElementsOf(entries.expected());
                    }
                }
            }
        }
    }

    @Test
    void rowGroupsEndOnEntryBoundariesWithinTheirSizeAndCarryOffsetStatistics() {
        Entries entries = mixed(0);
        long limit = 1 << 20;
        Segments.Written file = Segments.write(
                new ParquetSegmentFormat(
                        ParquetSegmentOptions.DEFAULT.withRowGroupPayloadBytes(limit), ValueColumns.NONE),
                entries);
        SegmentFooter footer =
                SegmentFooter.parse("k", file.size(), file.bytes().duplicate(), readOptions());
        List<BlockMetaData> blocks = footer.metadata.getBlocks();
        assertThat(blocks).hasSizeGreaterThan(5);
        int next = 0;
        for (BlockMetaData b : blocks) {
            ColumnChunkMetaData offsets = b.getColumns().stream()
                    .filter(c -> c.getPath().toDotString().equals(SegmentColumns.OFFSET))
                    .findFirst()
                    .orElseThrow();
            Statistics<?> stats = offsets.getStatistics();
            assertThat(stats.hasNonNullValue()).isTrue();
            long min = (Long) stats.genericGetMin();
            long max = (Long) stats.genericGetMax();
            // Whole entries: the group starts at an entry's first offset, and holds its rows up to an entry's end.
            assertThat(min).isEqualTo(entries.expected().get(next).offset());
            long rows = 0;
            long payload = 0;
            int first = next;
            while (next < entries.expected().size()
                    && entries.expected().get(next).offset() <= max) {
                rows += entries.expected().get(next).records();
                payload += entries.expected().get(next).length();
                next++;
            }
            assertThat(b.getRowCount()).isEqualTo(rows);
            assertThat(payload <= limit || next - first == 1)
                    .as("group of entries %d..%d: %d bytes", first, next - 1, payload)
                    .isTrue();
            // The entry column has no min/max: raw bytes would be copied into the footer.
            ColumnChunkMetaData raw = b.getColumns().get(0);
            assertThat(raw.getPath().toDotString()).isEqualTo(SegmentColumns.ENTRY);
            assertThat(raw.getStatistics() == null || !raw.getStatistics().hasNonNullValue())
                    .isTrue();
        }
        assertThat(next).isEqualTo(entries.expected().size());
        // The 8 MiB + 1 entry is a row group alone.
        assertThat(blocks.stream()
                        .filter(b ->
                                b.getRowCount() == entries.expected().get(21).records()))
                .isNotEmpty();
        assertThat(footer.metadata.getFileMetaData().getKeyValueMetaData())
                .containsAllEntriesOf(Map.of(
                        "lakestream.segment.version", "1",
                        "lakestream.segment.streamId", "42",
                        "lakestream.segment.firstOffset", "0",
                        "lakestream.segment.endOffset", Long.toString(entries.endOffset()),
                        "lakestream.segment.entryCount", "34",
                        "lakestream.segment.payloadBytes", Long.toString(entries.payloadBytes())));
        MessageType schema = footer.schema;
        assertThat(schema.getFields().stream().map(f -> f.getName() + "=" + f.getId()))
                .containsExactly(
                        "_lakestream_entry=2147482647",
                        "_lakestream_offset=2147482646",
                        "_lakestream_records=2147482645",
                        "_lakestream_entry_index=2147482644");
        assertThat(file.entries()).isEqualTo(34);
        assertThat(file.payloadBytes()).isEqualTo(entries.payloadBytes());
        assertThat(file.endOffset()).isEqualTo(entries.endOffset());
    }

    @Test
    void theWriterRefusesEntriesThatDoNotFollowAndAnEmptySegment() {
        ParquetSegmentFormat format = new ParquetSegmentFormat();
        try (SegmentWriter w = format.newWriter(STREAM, 10, new MemoryUpload("k"))) {
            assertThatThrownBy(() -> w.append(new LogEntry(STREAM, 11, 1, 0, Unpooled.wrappedBuffer(new byte[1]))))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("does not follow offset 10");
            assertThatThrownBy(() -> w.append(new LogEntry(7, 10, 1, 0, Unpooled.wrappedBuffer(new byte[1]))))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("of stream 7");
            assertThatThrownBy(w::finish)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("no entries");
            w.append(new LogEntry(STREAM, 10, 2, 0, Unpooled.wrappedBuffer(new byte[3])));
            assertThat(w.payloadBytes()).isEqualTo(3);
            SegmentFile f = w.finish();
            assertThat(f.firstOffset()).isEqualTo(10);
            assertThat(f.endOffset()).isEqualTo(12);
            assertThatThrownBy(() -> w.append(new LogEntry(STREAM, 12, 1, 0, Unpooled.wrappedBuffer(new byte[1]))))
                    .isInstanceOf(IllegalStateException.class);
        }
    }

    static org.apache.parquet.ParquetReadOptions readOptions() {
        return org.apache.parquet.ParquetReadOptions.builder(new org.apache.parquet.conf.PlainParquetConfiguration())
                .withCodecFactory(new SegmentCodecs(0))
                .build();
    }

    /** Every entry's first offset, and an offset inside each entry of several records. */
    private static List<Long> starts(List<Expected> all) {
        List<Long> out = new ArrayList<>();
        for (Expected e : all) {
            out.add(e.offset());
            if (e.records() > 1) {
                out.add(e.offset() + e.records() / 2 + (e.records() > 2 ? 1 : 0));
            }
        }
        return out;
    }

    /** What a read must return: the entry holding {@code from} on, within the budgets, the first always. */
    static List<Expected> model(List<Expected> all, long from, int maxEntries, long maxBytes) {
        List<Expected> out = new ArrayList<>();
        long bytes = 0;
        for (Expected e : all) {
            if (e.end() <= from) {
                continue;
            }
            if (out.size() >= maxEntries || (!out.isEmpty() && bytes + e.length() > maxBytes)) {
                break;
            }
            out.add(e);
            bytes += e.length();
        }
        return out;
    }

    static List<Expected> readAll(SegmentReader reader, IndexRecord record, long from, int maxEntries, long maxBytes) {
        List<Expected> out = new ArrayList<>();
        long at = from;
        while (at < record.endOffset()) {
            List<LogEntry> got = reader.read(record, at, maxEntries, maxBytes).join();
            assertThat(got).as("read at %d", at).isNotEmpty();
            for (LogEntry e : got) {
                out.add(Segments.row(e));
                at = e.endOffset();
            }
        }
        return out;
    }
}
