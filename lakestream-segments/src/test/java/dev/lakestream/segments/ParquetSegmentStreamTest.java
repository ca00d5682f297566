package dev.lakestream.segments;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lakestream.core.Lakestream;
import dev.lakestream.core.LakestreamConfig;
import dev.lakestream.core.StreamLog;
import dev.lakestream.core.catalog.StreamInfo;
import dev.lakestream.core.compaction.SegmentSwitch;
import dev.lakestream.core.index.IndexRecord;
import dev.lakestream.core.index.IndexValue;
import dev.lakestream.core.index.OffsetIndex;
import dev.lakestream.core.log.EntryUnreadableException;
import dev.lakestream.core.log.LakestreamLogTest;
import dev.lakestream.core.log.LogEntry;
import dev.lakestream.core.objectstore.ObjectUpload;
import dev.lakestream.core.segment.SegmentFile;
import dev.lakestream.core.segment.SegmentFormat;
import dev.lakestream.core.segment.SegmentFormats;
import dev.lakestream.core.segment.SegmentKeys;
import dev.lakestream.core.segment.SegmentWriter;
import dev.lakestream.core.wal.WalWriterConfig;
import dev.lakestream.segments.Segments.Expected;
import io.netty.buffer.Unpooled;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A stream whose ranges are switched to Parquet segments ({@link SegmentSwitch}, the format found by ServiceLoader
 * through this module's {@code META-INF/services}) reads back through {@link StreamLog#read} each offset once, in
 * order, with the same bytes, across WAL → segment → WAL → segment → WAL, with every budget. Subclasses run it on the
 * embedded pair and on S3Proxy + Oxia.
 */
abstract class ParquetSegmentStreamTest {

    protected abstract LakestreamLogTest.Stores openStores() throws Exception;

    private static final LakestreamConfig CONFIG = LakestreamConfig.DEFAULT
            .withMetadataRoot("/parquet-segments")
            .withWriter(new WalWriterConfig(64 << 10, Duration.ofMillis(2), 64L << 20, WalWriterConfig.WhenFull.WAIT));

    private LakestreamLogTest.Stores stores;
    private Lakestream lakestream;
    private StreamInfo info;
    private StreamLog stream;
    private OffsetIndex index;
    private SegmentSwitch segmentSwitch;
    private SegmentFormat format;
    private final List<Expected> expected = new ArrayList<>();
    private final Random random = new Random(20261204L);

    @BeforeEach
    void open() throws Exception {
        stores = openStores();
        lakestream = Lakestream.open(stores.objects(), stores.metadata(), CONFIG);
        info = lakestream
                .catalog()
                .create("test", "parquet-" + System.nanoTime(), Map.of())
                .join();
        stream = lakestream.stream(info);
        index = new OffsetIndex(stores.metadata());
        segmentSwitch = new SegmentSwitch(stores.metadata(), CONFIG.metadataRoot());
        format = SegmentFormats.installed()
                .forFileType(IndexValue.FILE_TYPE_PARQUET)
                .orElseThrow();
    }

    @AfterEach
    void close() {
        lakestream.close();
        stores.close();
    }

    @Test
    void theFormatIsFoundByServiceLoaderAndReadsCrossWalAndSegmentsWithEveryBudget() {
        assertThat(format).isInstanceOf(ParquetSegmentFormat.class);
        assertThat(format.name()).isEqualTo("parquet");
        appendGroups(12, 8);
        List<IndexRecord> before = records();
        assertThat(before).hasSizeGreaterThan(8);
        // WAL, a segment, WAL, a segment, WAL.
        compact(1, 3);
        compact(3, 4);
        List<IndexRecord> after = records();
        assertThat(after.stream().filter(r -> r.value().isCompacted())).hasSize(2);
        assertThat(after.get(0).value().isCompacted()).isFalse();
        assertThat(after.get(1).value().isCompacted()).isTrue();
        assertThat(after.get(after.size() - 1).value().isCompacted()).isFalse();
        assertThat(after.get(1).value().location())
                .startsWith("segments/" + stream.id() + "/")
                .endsWith(".parquet");
        assertThat(stream.endOffset().join())
                .isEqualTo(before.get(before.size() - 1).endOffset());
        for (long maxBytes : new long[] {1, 1000, 64 << 10, 16 << 20}) {
            for (int maxEntries : new int[] {1, 3, 1000}) {
                assertThat(readAll(0, maxEntries, maxBytes))
                        .as("maxEntries %d, maxBytes %d", maxEntries, maxBytes)
                        .containsExactlyElementsOf(expected);
            }
        }
        // A read from inside a compacted record starts at the entry holding the offset, with the record's time.
        IndexRecord compacted = after.get(1);
        long mid = (compacted.startOffset() + compacted.endOffset()) / 2;
        List<LogEntry> first = stream.read(mid, 1, 1).join();
        assertThat(first).hasSize(1);
        assertThat(first.get(0).timestamp()).isEqualTo(compacted.timestamp());
        Expected holding = Segments.row(first.get(0));
        assertThat(holding.offset()).isLessThanOrEqualTo(mid);
        assertThat(holding.end()).isGreaterThan(mid);
        List<Expected> tail = readAll(mid, 10, 1 << 20);
        assertThat(tail).isEqualTo(expected.subList(expected.indexOf(holding), expected.size()));
    }

    @Test
    void aReaderReadingOnInsideASegmentDoesNotScanTheIndexForEachRead() {
        appendGroups(8, 8);
        // The first records holding 12 entries or more (how many entries a WAL record holds depends on batching).
        List<IndexRecord> all = records();
        int count = 0;
        for (long entries = 0; entries < 12; count++) {
            entries += all.get(count).value().entryCount();
        }
        IndexRecord segment = compact(0, count);
        FaultyMetadataStore counting = new FaultyMetadataStore(stores.metadata());
        try (Lakestream reading = Lakestream.open(stores.objects(), counting, CONFIG)) {
            StreamLog s = reading.stream(info);
            int before = counting.rangeScans.get();
            List<Expected> got = new ArrayList<>();
            int reads = 0;
            long started = System.nanoTime();
            for (long at = segment.startOffset(); at < segment.endOffset(); reads++) {
                List<LogEntry> entries = s.read(at, 1, 1).join();
                at = entries.get(0).endOffset();
                entries.forEach(e -> got.add(Segments.row(e)));
            }
            long seconds = (System.nanoTime() - started) / 1_000_000_000L;
            assertThat(got)
                    .containsExactlyElementsOf(expected.stream()
                            .filter(e -> e.offset() < segment.endOffset())
                            .toList());
            assertThat(reads).isGreaterThanOrEqualTo(12);
            // The first read finds the compacted record; the others read through it, kept a second (so one more scan
            // a second: a slow machine may take more than one), and near its end the next record is looked up once.
            assertThat(counting.rangeScans.get() - before)
                    .as("index scans for %d reads in %d s", reads, seconds)
                    .isLessThanOrEqualTo(3 + (int) seconds);
        }
    }

    @Test
    void aReaderReadingOnHasTheNextSegmentFetchedAheadBeforeItReachesIt() {
        appendGroups(24, 8);
        // Two segments one after the other, each larger than what is fetched whole on first read (256 KiB).
        int half = records().size() / 2;
        IndexRecord first = compact(0, half);
        IndexRecord second = compact(1, records().size() - 2);
        assertThat(first.value().fileSize()).isGreaterThan(256 << 10);
        assertThat(second.value().fileSize()).isGreaterThan(256 << 10);
        assertThat(second.startOffset()).isEqualTo(first.endOffset());
        CountingObjectStore counting = new CountingObjectStore(stores.objects());
        try (Lakestream reading = Lakestream.open(counting, stores.metadata(), CONFIG)) {
            StreamLog s = reading.stream(info);
            List<Expected> got = new ArrayList<>();
            for (long at = 0; at < first.endOffset(); ) {
                List<LogEntry> entries = s.read(at, 2, 1 << 20).join();
                at = entries.get(entries.size() - 1).endOffset();
                entries.forEach(e -> got.add(Segments.row(e)));
            }
            assertThat(got)
                    .containsExactlyElementsOf(expected.stream()
                            .filter(e -> e.offset() < first.endOffset())
                            .toList());
            // No read asked for the second segment yet: its footer and first bytes come ahead all the same.
            org.awaitility.Awaitility.await("the next segment fetched ahead")
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> counting.keys.contains(second.value().location()));
            assertThat(readAllFrom(s, first.endOffset()))
                    .containsExactlyElementsOf(expected.stream()
                            .filter(e -> e.offset() >= first.endOffset())
                            .toList());
        }
    }

    private List<Expected> readAllFrom(StreamLog s, long from) {
        List<Expected> out = new ArrayList<>();
        long end = s.endOffset().join();
        for (long at = from; at < end; ) {
            List<LogEntry> entries = s.read(at, 2, 1 << 20).join();
            at = entries.get(entries.size() - 1).endOffset();
            entries.forEach(e -> out.add(Segments.row(e)));
        }
        return out;
    }

    @Test
    void aMissingSegmentFailsTheStreamsReadNamingTheObjectAndOffset() {
        appendGroups(6, 4);
        IndexRecord compacted = compact(0, 2);
        stores.objects().delete(List.of(compacted.value().location())).join();
        assertThatThrownBy(() -> stream.read(1, 10, 1 << 20).join())
                .hasCauseInstanceOf(EntryUnreadableException.class)
                .cause()
                .hasMessageContaining(compacted.value().location())
                .hasMessageContaining("offset 1")
                .hasMessageContaining("is missing from the object store");
        // The WAL records after it still read.
        assertThat(readAll(compacted.endOffset(), 1000, 1 << 20))
                .containsExactlyElementsOf(expected.stream()
                        .filter(e -> e.offset() >= compacted.endOffset())
                        .toList());
    }

    // ------------------------------------------------------------------ helpers

    /** Appends {@code groups} groups of {@code perGroup} entries of 1 byte to 100 KB, each group awaited. */
    private void appendGroups(int groups, int perGroup) {
        for (int g = 0; g < groups; g++) {
            List<CompletableFuture<?>> pending = new ArrayList<>();
            long next =
                    expected.isEmpty() ? 0 : expected.get(expected.size() - 1).end();
            for (int e = 0; e < perGroup; e++) {
                int size = random.nextInt(4) == 0 ? 1 : 1 + random.nextInt(100_000);
                int records = 1 + random.nextInt(3);
                byte[] bytes = new byte[size];
                random.nextBytes(bytes);
                expected.add(new Expected(next, records, size, Segments.crc(bytes)));
                next += records;
                pending.add(stream.append(records, Unpooled.wrappedBuffer(bytes)));
            }
            CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).join();
        }
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
        ObjectUpload out = stores.objects().newUpload(SegmentKeys.newKey(stream.id(), from, to, format.name()));
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

    private List<Expected> readAll(long from, int maxEntries, long maxBytes) {
        List<Expected> out = new ArrayList<>();
        long end = stream.endOffset().join();
        long at = from;
        while (at < end) {
            List<LogEntry> entries = stream.read(at, maxEntries, maxBytes).join();
            assertThat(entries).as("read at %d below the end %d", at, end).isNotEmpty();
            assertThat(entries.size()).isLessThanOrEqualTo(maxEntries);
            long bytes =
                    entries.stream().mapToLong(e -> e.payload().readableBytes()).sum();
            long readAt = at;
            boolean inSegment = records().stream()
                    .anyMatch(r -> r.value().isCompacted() && r.startOffset() <= readAt && readAt < r.endOffset());
            if (inSegment) {
                // The segment reader keeps to the byte budget (the first entry always whole).
                assertThat(entries.size() == 1 || bytes <= maxBytes)
                        .as("read at %d: %d entries, %d bytes for a budget of %d", at, entries.size(), bytes, maxBytes)
                        .isTrue();
            }
            for (LogEntry e : entries) {
                out.add(Segments.row(e));
                at = e.endOffset();
            }
        }
        return out;
    }
}
