package dev.lakestream.segments;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lakestream.core.index.IndexRecord;
import dev.lakestream.core.log.LogEntry;
import dev.lakestream.core.objectstore.ForwardingObjectStore;
import dev.lakestream.core.objectstore.ForwardingObjectStream;
import dev.lakestream.core.objectstore.ObjectStore;
import dev.lakestream.core.objectstore.ObjectStoreException;
import dev.lakestream.core.objectstore.ObjectStream;
import dev.lakestream.core.objectstore.fs.FileSystemObjectStore;
import dev.lakestream.core.objectstore.fs.FileSystemObjectStoreConfig;
import dev.lakestream.core.segment.SegmentReader;
import dev.lakestream.segments.Segments.Entries;
import dev.lakestream.segments.Segments.Expected;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The reader fetches what a read needs, counted at the store: the footer (once per object) and the row group holding
 * the offset, in one GET each; never the whole object, unless it is small.
 */
class RangedReadsTest {

    @TempDir
    Path dir;

    private FileSystemObjectStore store;
    private CountingObjectStore objects;

    @BeforeEach
    void open() {
        store = new FileSystemObjectStore(FileSystemObjectStoreConfig.of(dir));
        objects = new CountingObjectStore(store);
    }

    @AfterEach
    void close() {
        store.close();
    }

    @Test
    void aSmallEntryOfALargeSegmentCostsTheFooterAndOneRowGroup() {
        // 400 entries of 100 KB: 40 MB in row groups of 1 MiB.
        Entries entries = Segments.entries(7, 0, 400, 4, new Random(1), (i, r) -> 100_000);
        ParquetSegmentFormat format = new ParquetSegmentFormat(
                ParquetSegmentOptions.DEFAULT.withRowGroupPayloadBytes(1 << 20), ValueColumns.NONE);
        Segments.Written file = Segments.write(format, entries);
        IndexRecord record = Segments.store(store, "segments/7/large.parquet", file, 5);
        assertThat(file.size()).isGreaterThan(40_000_000L);
        try (SegmentReader reader = format.openReader(objects, UnpooledByteBufAllocator.DEFAULT)) {
            Expected middle = entries.expected().get(217);
            List<LogEntry> got = reader.read(record, middle.offset(), 1, 1).join();
            assertThat(got.stream().map(Segments::row)).containsExactly(middle);
            // The footer's tail (64 KiB holds it) and the row group: two GETs, about one row group's bytes.
            assertThat(objects.wholeGets).hasValue(0);
            assertThat(objects.gets).hasValue(2);
            assertThat(objects.bytes.get()).isBetween(1L << 20, (64L << 10) + (1L << 20) + (200L << 10));

            // Another row group: the footer is cached, one GET.
            objects.reset();
            Expected early = entries.expected().get(12);
            got = reader.read(record, early.offset() + early.records() - 1, 1, 1)
                    .join();
            assertThat(got.stream().map(Segments::row)).containsExactly(early);
            assertThat(objects.gets).hasValue(1);
            assertThat(objects.bytes.get()).isLessThan((1L << 20) + (200L << 10));

            // A read of 3 MB goes on into the following row groups, one GET each, and no further.
            objects.reset();
            got = reader.read(record, middle.offset(), 1000, 3_000_000).join();
            assertThat(got.stream().map(Segments::row))
                    .containsExactlyElementsOf(entries.expected().subList(217, 217 + 30));
            assertThat(objects.gets.get()).isBetween(3L, 5L);
            assertThat(objects.bytes.get()).isLessThan(5L << 20);
        }
    }

    @Test
    void aFooterLongerThanTheFirstTailCostsOneMoreGet() {
        Entries entries = Segments.entries(7, 0, 200, 2, new Random(2), (i, r) -> 10_000);
        ParquetSegmentFormat format = new ParquetSegmentFormat(
                ParquetSegmentOptions.DEFAULT.withRowGroupPayloadBytes(50_000),
                ValueColumns.NONE,
                new ParquetSegmentReader.Limits(0, 256, 16));
        Segments.Written file = Segments.write(format, entries);
        IndexRecord record = Segments.store(store, "segments/7/long-footer.parquet", file, 5);
        try (SegmentReader reader = format.openReader(objects, UnpooledByteBufAllocator.DEFAULT)) {
            assertThat(reader.read(record, 0, 1, 1).join().stream().map(Segments::row))
                    .containsExactly(entries.expected().get(0));
            assertThat(objects.gets).hasValue(3);
        }
    }

    @Test
    void aSmallSegmentIsOneGet() {
        Entries entries = Segments.entries(7, 0, 50, 3, new Random(3), (i, r) -> 1 + r.nextInt(1000));
        ParquetSegmentFormat format = new ParquetSegmentFormat();
        Segments.Written file = Segments.write(format, entries);
        assertThat(file.size()).isLessThan(256 << 10);
        IndexRecord record = Segments.store(store, "segments/7/small.parquet", file, 5);
        try (SegmentReader reader = format.openReader(objects, UnpooledByteBufAllocator.DEFAULT)) {
            for (int i = 0; i < 3; i++) {
                objects.reset();
                assertThat(ParquetSegmentRoundTripTest.readAll(reader, record, 0, 1000, 1 << 20))
                        .containsExactlyElementsOf(entries.expected());
                // Read again, the decoded row groups kept serve it.
                assertThat(objects.gets).hasValue(i == 0 ? 1 : 0);
                assertThat(objects.bytes).hasValue(i == 0 ? file.size() : 0);
            }
        }
    }

    @Test
    void aReaderReadingOnHasTheRowGroupsAheadFetchedInSpansAndAPlainReadDoesNot() throws Exception {
        // 1,000 entries of 10 KB in row groups of 1 MiB (about 10); read ahead in spans of 2 MiB (two groups).
        Entries entries = Segments.entries(7, 0, 1000, 1, new Random(5), (i, r) -> 10_000);
        ParquetSegmentFormat format = new ParquetSegmentFormat(
                ParquetSegmentOptions.DEFAULT.withRowGroupPayloadBytes(1 << 20),
                ValueColumns.NONE,
                new ParquetSegmentReader.Limits(256 << 10, 64 << 10, 16, 1, 64L << 20, 2L << 20));
        Segments.Written file = Segments.write(format, entries);
        IndexRecord record = Segments.store(store, "segments/7/ahead.parquet", file, 5);
        try (SegmentReader reader = format.openReader(objects, UnpooledByteBufAllocator.DEFAULT)) {
            // A first read, at the segment's start: the footer and row group 0.
            List<LogEntry> first = reader.read(record, 0, 10, 1 << 20).join();
            first.forEach(Segments::row);
            assertThat(objects.gets).hasValue(2);
            // A read on from where it ended: the next two groups come ahead in one GET, no read asking for them.
            long at = first.get(first.size() - 1).endOffset();
            reader.readOn(record, at, 10, 1 << 20).join().forEach(Segments::row);
            org.awaitility.Awaitility.await("row groups 1 and 2 fetched ahead")
                    .atMost(java.time.Duration.ofSeconds(10))
                    .until(() -> objects.gets.get() == 3);
            // Reading into them costs no GET (plain reads: nothing more is fetched ahead).
            List<LogEntry> into = reader.read(record, 150, 10, 1 << 20).join();
            assertThat(into.get(0).offset()).isEqualTo(150);
            into.forEach(Segments::row);
            List<LogEntry> further = reader.read(record, 250, 10, 1 << 20).join();
            assertThat(further.get(0).offset()).isEqualTo(250);
            further.forEach(Segments::row);
            assertThat(objects.gets).hasValue(3);
            // A read elsewhere fetches only what it reads. A fetch ahead is started before a read completes (its GET
            // counted then), so the count is final when the read returns.
            reader.read(record, 950, 1, 1 << 20).join().forEach(Segments::row);
            assertThat(objects.gets).hasValue(4);
        }
    }

    @Test
    void aConsumerReadingOnInSmallStepsFetchesTheSegmentInOneStream() {
        // 2,000 entries of 10 KB in row groups of 1 MiB (about 20), read as a dispatcher catches up: 25 entries a read;
        // read ahead in spans of 4 MiB.
        Entries entries = Segments.entries(7, 0, 2000, 2, new Random(4), (i, r) -> 10_000);
        ParquetSegmentFormat format = catchUpFormat();
        Segments.Written file = Segments.write(format, entries);
        IndexRecord record = Segments.store(store, "segments/7/catch-up.parquet", file, 5);
        try (SegmentReader reader = format.openReader(objects, UnpooledByteBufAllocator.DEFAULT)) {
            List<Expected> got = new java.util.ArrayList<>();
            assertThat(catchUp(reader, record, got)).isEqualTo(80);
            assertThat(got).containsExactlyElementsOf(entries.expected());
            // The footer, row group 0, then the others in spans of 4 MiB (about 5) read from one stream: three GETs,
            // not one per read, per group or per span, and each byte fetched once.
            assertThat(objects.gets).hasValue(3);
            assertThat(objects.streams).hasValue(1);
            assertThat(objects.bytes.get()).isLessThan(file.size() + (64L << 10));
        }
    }

    @Test
    void aStreamThatFailsMidwayCostsGetsNotEntries() {
        // As aConsumerReadingOnInSmallSteps..., but each stream's second read fails (a connection reset mid-body).
        Entries entries = Segments.entries(7, 0, 2000, 2, new Random(6), (i, r) -> 10_000);
        ParquetSegmentFormat format = catchUpFormat();
        Segments.Written file = Segments.write(format, entries);
        IndexRecord record = Segments.store(store, "segments/7/reset.parquet", file, 5);
        ObjectStore resetting = new ForwardingObjectStore("resetting", objects) {
            @Override
            public CompletableFuture<ObjectStream> openStream(String key, long offset, long length) {
                return store.openStream(key, offset, length).thenApply(s -> new FailingSecondRead(s));
            }
        };
        try (SegmentReader reader = format.openReader(resetting, UnpooledByteBufAllocator.DEFAULT)) {
            List<Expected> got = new java.util.ArrayList<>();
            catchUp(reader, record, got);
            assertThat(got).containsExactlyElementsOf(entries.expected());
            assertThat(objects.streams.get()).isGreaterThan(1);
        }
    }

    /** Row groups of 1 MiB, read ahead in spans of 4 MiB. */
    private static ParquetSegmentFormat catchUpFormat() {
        return new ParquetSegmentFormat(
                ParquetSegmentOptions.DEFAULT.withRowGroupPayloadBytes(1 << 20),
                ValueColumns.NONE,
                new ParquetSegmentReader.Limits(256 << 10, 64 << 10, 16, 1, 64L << 20, 4L << 20));
    }

    /**
     * Reads {@code record} to its end as a dispatcher catches up (25 entries a read, each on from the last) into
     * {@code got}; returns the number of reads.
     */
    private static int catchUp(SegmentReader reader, IndexRecord record, List<Expected> got) {
        int reads = 0;
        for (long at = 0; at < record.endOffset(); reads++) {
            List<LogEntry> batch = at == 0
                    ? reader.read(record, at, 25, 1 << 20).join()
                    : reader.readOn(record, at, 25, 1 << 20).join();
            assertThat(batch).as("a read at %d", at).isNotEmpty();
            at = batch.get(batch.size() - 1).endOffset();
            batch.forEach(e -> got.add(Segments.row(e))); // releases the payload
        }
        return reads;
    }

    /** A stream whose second read fails as a reset connection would. */
    private static final class FailingSecondRead extends ForwardingObjectStream {
        private int reads;

        FailingSecondRead(ObjectStream s) {
            super(s);
        }

        @Override
        public CompletableFuture<ByteBuffer> read(int length) {
            if (++reads == 2) {
                stream.close();
                return CompletableFuture.failedFuture(new ObjectStoreException("connection reset (injected)"));
            }
            return stream.read(length);
        }
    }
}
