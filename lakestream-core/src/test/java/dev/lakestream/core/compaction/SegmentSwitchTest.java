package dev.lakestream.core.compaction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lakestream.core.Lakestream;
import dev.lakestream.core.LakestreamConfig;
import dev.lakestream.core.StreamLog;
import dev.lakestream.core.catalog.StreamInfo;
import dev.lakestream.core.gc.DeleteGate;
import dev.lakestream.core.gc.GcConfig;
import dev.lakestream.core.gc.GcResult;
import dev.lakestream.core.gc.WalGarbageCollector;
import dev.lakestream.core.index.IndexKey;
import dev.lakestream.core.index.IndexRecord;
import dev.lakestream.core.index.IndexValue;
import dev.lakestream.core.index.OffsetIndex;
import dev.lakestream.core.log.EntryUnreadableException;
import dev.lakestream.core.log.LakestreamLogTest;
import dev.lakestream.core.log.LogEntry;
import dev.lakestream.core.log.StreamRows;
import dev.lakestream.core.log.StreamRows.Row;
import dev.lakestream.core.metadata.DeleteOptions;
import dev.lakestream.core.metadata.PutOptions;
import dev.lakestream.core.metadata.UnexpectedVersionException;
import dev.lakestream.core.objectstore.ObjectUpload;
import dev.lakestream.core.segment.EntryListSegmentFormat;
import dev.lakestream.core.segment.SegmentFile;
import dev.lakestream.core.segment.SegmentFormat;
import dev.lakestream.core.segment.SegmentKeys;
import dev.lakestream.core.segment.SegmentWriter;
import dev.lakestream.core.wal.WalWriterConfig;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The index's second level: ranges of a stream switched from WAL records to segments ({@link SegmentSwitch}, through
 * the test format {@link EntryListSegmentFormat}) are read back by the ordinary stream reads, each offset once, in
 * order, the same bytes and commit times: from the start, across WAL and segment and WAL again, with every budget,
 * while the switches happen under readers, and half-way through a switch (stopped after the overwrite). Subclasses
 * run it on the embedded pair and on S3Proxy + the real Oxia server.
 */
public abstract class SegmentSwitchTest {

    protected abstract LakestreamLogTest.Stores openStores() throws Exception;

    /** One record per few appends: small objects flushed every few ms, so a stream has many index records. */
    private static final LakestreamConfig CONFIG = LakestreamConfig.DEFAULT
            .withMetadataRoot("/segment-switch")
            .withWriter(new WalWriterConfig(64 << 10, Duration.ofMillis(2), 64L << 20, WalWriterConfig.WhenFull.WAIT));

    private static final SegmentFormat FORMAT = new EntryListSegmentFormat();

    /** What a reader must find: one row per entry. */
    private LakestreamLogTest.Stores stores;

    private LakestreamConfig config;
    private Lakestream lakestream;
    private StreamLog stream;
    private OffsetIndex index;
    private SegmentSwitch segmentSwitch;
    private final List<Row> expected = new ArrayList<>();
    private final Random random = new Random(20261204L);

    @BeforeEach
    void open() throws Exception {
        stores = openStores();
        // A root of its own per test: on the shared Oxia server a GC run's checkpoint must not carry over.
        config = CONFIG.withMetadataRoot("/segment-switch-" + System.nanoTime());
        lakestream = Lakestream.open(stores.objects(), stores.metadata(), config);
        StreamInfo info = lakestream
                .catalog()
                .create("test", "switch-" + System.nanoTime(), Map.of())
                .join();
        stream = lakestream.stream(info);
        index = new OffsetIndex(stores.metadata());
        segmentSwitch = new SegmentSwitch(stores.metadata(), config.metadataRoot());
    }

    @AfterEach
    void close() {
        lakestream.close();
        stores.close();
    }

    @Test
    void readsCrossWalAndSegmentsWithEveryBudget() {
        appendGroups(12, 8);
        List<IndexRecord> before = records();
        assertThat(before).hasSizeGreaterThan(8);
        // The head, a middle run and one record alone; the rest stays WAL.
        compact(0, 3);
        compact(2, 2);
        compact(4, 1);
        List<IndexRecord> after = records();
        assertThat(after.stream().filter(r -> r.value().isCompacted())).hasSize(3);
        assertThat(after).hasSize(before.size() - 3);
        // The stream's counters and record times stay: same keys, same creation times.
        assertThat(stream.endOffset().join())
                .isEqualTo(before.get(before.size() - 1).endOffset());
        for (IndexRecord r : after) {
            IndexRecord old = before.stream()
                    .filter(b -> b.key().equals(r.key()))
                    .findFirst()
                    .orElseThrow();
            assertThat(r.timestamp()).as("creation time of %s", r.key()).isEqualTo(old.timestamp());
        }
        for (long maxBytes : new long[] {1, 1000, 64 << 10, 16 << 20}) {
            for (int maxEntries : new int[] {1, 3, 1000}) {
                assertThat(readAll(0, maxEntries, maxBytes))
                        .as("maxEntries %d, maxBytes %d", maxEntries, maxBytes)
                        .containsExactlyElementsOf(expected);
            }
        }
        // A read from inside a compacted record starts at the entry holding the offset.
        IndexRecord compacted = after.get(0);
        long mid = (compacted.startOffset() + compacted.endOffset()) / 2;
        assertThat(compacted.value().isCompacted()).isTrue();
        List<Row> tail = readAll(mid, 10, 1 << 20);
        assertThat(tail.get(0).offset()).isLessThanOrEqualTo(mid);
        assertThat(tail.get(0).offset() + tail.get(0).records()).isGreaterThan(mid);
        assertThat(tail).isEqualTo(expected.subList(expected.indexOf(tail.get(0)), expected.size()));
        assertThat(stream.payloadBytes(0, stream.endOffset().join()).join())
                .isEqualTo(before.stream()
                        .mapToLong(r -> r.value().entrySizeBytes())
                        .sum());
    }

    @Test
    void readersSeeEveryOffsetOnceWhileRangesSwitchUnderThem() throws Exception {
        AtomicBoolean writing = new AtomicBoolean(true);
        ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
        long[][] budgets = {{1, 1}, {3, 2000}, {100, 64 << 10}, {1000, 16 << 20}};
        List<List<Row>> seen = new ArrayList<>();
        List<Thread> readers = new ArrayList<>();
        for (long[] b : budgets) {
            List<Row> mine = new ArrayList<>();
            seen.add(mine);
            readers.add(Thread.ofPlatform().start(() -> {
                try {
                    long at = 0;
                    while (true) {
                        boolean last = !writing.get();
                        long end = stream.endOffset().join();
                        while (at < end) {
                            List<LogEntry> entries =
                                    stream.read(at, (int) b[0], b[1]).join();
                            assertThat(entries)
                                    .as("read at %d below the end %d", at, end)
                                    .isNotEmpty();
                            for (LogEntry e : entries) {
                                mine.add(StreamRows.row(e));
                                at = e.endOffset();
                            }
                        }
                        if (last) {
                            return;
                        }
                        Thread.sleep(2);
                    }
                } catch (Throwable t) {
                    errors.add(t);
                }
            }));
        }
        Thread compactor = Thread.ofPlatform().start(() -> {
            try {
                while (writing.get()) {
                    compactOldRun(4);
                    Thread.sleep(5);
                }
            } catch (Throwable t) {
                errors.add(t);
            }
        });
        for (int round = 0; round < 30; round++) {
            appendGroups(1, 6);
        }
        writing.set(false);
        compactor.join();
        for (Thread r : readers) {
            r.join();
        }
        assertThat(errors).isEmpty();
        assertThat(records().stream().filter(r -> r.value().isCompacted())).isNotEmpty();
        for (int i = 0; i < budgets.length; i++) {
            assertThat(seen.get(i))
                    .as("reader with budgets %d entries, %d bytes", budgets[i][0], budgets[i][1])
                    .containsExactlyElementsOf(expected);
        }
        assertThat(readAll(0, 1000, 16 << 20)).containsExactlyElementsOf(expected);
    }

    @Test
    void aSwitchStoppedAfterItsOverwriteLeavesEachOffsetReadableOnce() {
        appendGroups(8, 6);
        List<IndexRecord> run = records().subList(1, 5);
        // Steps 1 and 3 only: the segment, then the overwrite of the last record; the records below stay.
        overwriteLastWithCompacted(run);
        for (int maxEntries : new int[] {1, 5, 1000}) {
            assertThat(readAll(0, maxEntries, 1 << 20)).containsExactlyElementsOf(expected);
        }
        // Step 4, as the compactor's next pass does it.
        IndexRecord compacted = records().stream()
                .filter(r -> r.value().isCompacted())
                .findFirst()
                .orElseThrow();
        List<IndexRecord> leftovers = records().stream()
                .filter(r -> !r.value().isCompacted()
                        && r.startOffset() >= compacted.startOffset()
                        && r.endOffset() < compacted.endOffset())
                .toList();
        assertThat(leftovers).hasSize(run.size() - 1);
        int recordsBefore = records().size();
        segmentSwitch.deleteLeftovers(compacted, leftovers).join();
        assertThat(records()).hasSize(recordsBefore - leftovers.size());
        assertThat(readAll(0, 1000, 1 << 20)).containsExactlyElementsOf(expected);
    }

    /**
     * Half-way through step 4: the compacted record is written and the covered records are being deleted in parallel,
     * the one holding the range's first offset already gone and the others not yet. A read from that offset finds the
     * later covered records first (their keys sort before the compacted record's); reading them would skip the gone
     * record's entries. Read with one entry a read too, so that the scan ends before the compacted record.
     */
    @Test
    void aSwitchHalfWayThroughItsDeletesLeavesEachOffsetReadableOnce() {
        appendGroups(8, 6);
        List<IndexRecord> run = records().subList(1, 6);
        String pk = overwriteLastWithCompacted(run);
        // Of the deletes below the compacted record, the first and the third have landed.
        for (int gone : new int[] {0, 2}) {
            IndexRecord r = run.get(gone);
            stores.metadata()
                    .delete(
                            r.key().format(),
                            DeleteOptions.ifVersion(r.versionId()).partitionKey(pk))
                    .join();
        }
        for (int maxEntries : new int[] {1, 2, 5, 1000}) {
            assertThat(readAll(0, maxEntries, 1 << 20))
                    .as("read %d entries at a time", maxEntries)
                    .containsExactlyElementsOf(expected);
            assertThat(readAll(run.get(0).startOffset(), maxEntries, 1 << 20))
                    .as("read %d entries at a time from the range's first offset", maxEntries)
                    .containsExactlyElementsOf(expected.stream()
                            .filter(row -> row.offset() >= run.get(0).startOffset())
                            .toList());
        }
    }

    @Test
    void aSwitchOfARecordChangedSinceItWasReadIsRefusedAndChangesNothing() {
        appendGroups(6, 6);
        List<IndexRecord> run = records().subList(0, 3);
        IndexRecord last = run.get(2);
        // Another writer of the record (a retried commit, a concurrent switch) changes its version.
        stores.metadata()
                .put(
                        last.key().format(),
                        last.value().encode(),
                        PutOptions.DEFAULT.partitionKey(IndexKey.partitionKey(last.streamId())))
                .join();
        List<IndexRecord> before = records();
        assertThatThrownBy(
                        () -> segmentSwitch.commit(run, segmentOf(run), FORMAT).join())
                .isInstanceOf(CompletionException.class)
                .hasCauseInstanceOf(UnexpectedVersionException.class);
        assertThat(records()).isEqualTo(before);
        assertThat(readAll(0, 1000, 1 << 20)).containsExactlyElementsOf(expected);
    }

    @Test
    void twoSwitchesOfOverlappingRangesPlannedTogetherLeaveEveryOffsetReadableOnce() {
        appendGroups(8, 6);
        List<IndexRecord> all = records();
        // Both planned from the same scan (two compactors, or a zombie one): A takes records 0-3, B records 2-5.
        List<IndexRecord> a = all.subList(0, 4);
        List<IndexRecord> b = all.subList(2, 6);
        SegmentFile fileA = segmentOf(a);
        SegmentFile fileB = segmentOf(b);
        segmentSwitch.commit(a, fileA, FORMAT).join();
        // B's overwrite of its last record still succeeds (A never touched it); its deletes must spare A's record.
        segmentSwitch.commit(b, fileB, FORMAT).join();
        List<IndexRecord> after = records();
        assertThat(after.stream().filter(r -> r.value().isCompacted())).hasSize(2);
        assertThat(after.get(0).startOffset()).isZero();
        for (int maxEntries : new int[] {1, 7, 1000}) {
            assertThat(readAll(0, maxEntries, 1 << 20)).containsExactlyElementsOf(expected);
        }
    }

    @Test
    void aCompactedRecordOfAFormatNotInstalledFailsTheReadNamingIt() {
        appendGroups(4, 4);
        IndexRecord first = records().get(0);
        IndexValue parquet = IndexValue.compacted(
                "segments/" + first.streamId() + "/x.parquet",
                IndexValue.FILE_TYPE_PARQUET,
                first.value().messageCount(),
                first.value().entrySizeBytes(),
                100,
                first.value().entryCount(),
                Map.of());
        stores.metadata()
                .put(
                        first.key().format(),
                        parquet.encode(),
                        PutOptions.DEFAULT.partitionKey(IndexKey.partitionKey(first.streamId())))
                .join();
        assertThatThrownBy(() -> stream.read(0, 10, 1 << 20).join())
                .hasCauseInstanceOf(EntryUnreadableException.class)
                .cause()
                .hasMessageContaining("segments/" + first.streamId() + "/x.parquet")
                .hasMessageContaining("file type 1")
                .hasMessageContaining(first.key().format())
                .hasMessageContaining("[0, " + first.endOffset() + ")")
                .hasMessageContaining("entries (101)");
        // The WAL records after it still read.
        assertThat(readAll(first.endOffset(), 1000, 1 << 20))
                .containsExactlyElementsOf(expected.stream()
                        .filter(e -> e.offset() >= first.endOffset())
                        .toList());
    }

    @Test
    void aMissingOrCorruptSegmentFailsTheReadNamingTheObjectAndOffset() {
        appendGroups(6, 4);
        IndexRecord compacted = compact(0, 2);
        stores.objects()
                .put(compacted.value().location(), java.nio.ByteBuffer.wrap(new byte[64]))
                .join();
        assertThatThrownBy(() -> stream.read(0, 10, 1 << 20).join())
                .hasCauseInstanceOf(EntryUnreadableException.class)
                .cause()
                .hasMessageContaining(compacted.value().location())
                .hasMessageContaining("offset 0")
                .hasMessageContaining("corrupt");
        stores.objects().delete(List.of(compacted.value().location())).join();
        assertThatThrownBy(() -> stream.read(0, 10, 1 << 20).join())
                .hasCauseInstanceOf(EntryUnreadableException.class)
                .cause()
                .hasMessageContaining(compacted.value().location())
                .hasMessageContaining("missing");
    }

    @Test
    void theOldestWalRecordIsFoundPastCompactedOnes() {
        appendGroups(8, 4);
        List<IndexRecord> before = records();
        compact(0, 2);
        compact(1, 2);
        assertThat(index.first(stream.id()).join().orElseThrow().value().isCompacted())
                .isTrue();
        assertThat(index.firstWal(stream.id()).join().orElseThrow().key())
                .isEqualTo(before.get(4).key());
    }

    @Test
    void garbageCollectionDeletesOrphanAndTrimmedSegmentsAndKeepsWhatTheIndexNames() {
        appendGroups(8, 4);
        IndexRecord first = compact(0, 2);
        IndexRecord second = compact(1, 2);
        // A switch that failed after its PUT leaves a segment no record names.
        String orphan = SegmentKeys.newKey(stream.id(), 0, second.endOffset(), FORMAT.name());
        stores.objects().put(orphan, ByteBuffer.wrap(new byte[10])).join();
        // A collector two hours ahead, past the default margins: everything is old enough to be checked.
        WalGarbageCollector gc = new WalGarbageCollector(
                stores.objects(),
                stores.metadata(),
                config.metadataRoot(),
                GcConfig.DEFAULT,
                Clock.offset(Clock.systemUTC(), Duration.ofHours(2)));
        GcResult run = gc.runOnce(DeleteGate.UNLIMITED).join();
        assertThat(run.deletedSegments()).isEqualTo(1);
        assertThat(stores.objects().head(orphan).join()).isEmpty();
        assertThat(stores.objects().head(first.value().location()).join()).isPresent();
        assertThat(stores.objects().head(second.value().location()).join()).isPresent();
        // GC of the WAL objects the switches released kept everything the stream still reads.
        assertThat(readAll(0, 1000, 1 << 20)).containsExactlyElementsOf(expected);

        // A trim past the first segment's range releases it; the second, still read, stays.
        stream.trim(second.startOffset()).join();
        GcResult afterTrim = gc.runOnce(DeleteGate.UNLIMITED).join();
        assertThat(afterTrim.deletedSegments()).isEqualTo(1);
        assertThat(stores.objects().head(first.value().location()).join()).isEmpty();
        assertThat(stores.objects().head(second.value().location()).join()).isPresent();
        assertThat(readAll(second.startOffset(), 1000, 1 << 20))
                .containsExactlyElementsOf(expected.stream()
                        .filter(e -> e.offset() >= second.startOffset())
                        .toList());
    }

    @Test
    void deletingAStreamReleasesItsSegmentsToGarbageCollection() {
        appendGroups(6, 4);
        IndexRecord first = compact(0, 2);
        IndexRecord second = compact(1, 2);
        stream.deleteData().join();
        WalGarbageCollector gc = new WalGarbageCollector(
                stores.objects(),
                stores.metadata(),
                config.metadataRoot(),
                GcConfig.DEFAULT,
                Clock.offset(Clock.systemUTC(), Duration.ofHours(2)));
        assertThat(gc.runOnce(DeleteGate.UNLIMITED).join().deletedSegments()).isEqualTo(2);
        assertThat(stores.objects().head(first.value().location()).join()).isEmpty();
        assertThat(stores.objects().head(second.value().location()).join()).isEmpty();
    }

    // ------------------------------------------------------------------ helpers

    /**
     * Steps 1 and 3 of a switch of {@code run}: its segment stored, its last record overwritten with the compacted one;
     * the records below stay. Returns the stream's partition key.
     */
    private String overwriteLastWithCompacted(List<IndexRecord> run) {
        SegmentFile file = segmentOf(run);
        IndexRecord last = run.get(run.size() - 1);
        IndexValue value = IndexValue.compacted(
                file.key(),
                FORMAT.fileType(),
                file.messages(),
                file.payloadBytes(),
                file.size(),
                file.entries(),
                Map.of());
        String pk = IndexKey.partitionKey(last.streamId());
        stores.metadata()
                .put(
                        last.key().format(),
                        value.encode(),
                        PutOptions.ifVersion(last.versionId()).partitionKey(pk))
                .join();
        return pk;
    }

    /** Appends {@code groups} groups of {@code perGroup} entries of 1 byte to 100 KB, each group awaited. */
    private void appendGroups(int groups, int perGroup) {
        for (int g = 0; g < groups; g++) {
            List<CompletableFuture<?>> pending = new ArrayList<>();
            synchronized (expected) {
                long next = expected.isEmpty()
                        ? 0
                        : expected.get(expected.size() - 1).offset()
                                + expected.get(expected.size() - 1).records();
                for (int e = 0; e < perGroup; e++) {
                    int size = random.nextInt(4) == 0 ? 1 : 1 + random.nextInt(100_000);
                    int records = 1 + random.nextInt(3);
                    byte[] bytes = new byte[size];
                    random.nextBytes(bytes);
                    ByteBuf p = Unpooled.wrappedBuffer(bytes);
                    expected.add(new Row(next, records, StreamRows.crc(p)));
                    next += records;
                    pending.add(stream.append(records, p));
                }
            }
            CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).join();
        }
    }

    private List<IndexRecord> records() {
        return index.recordsFrom(stream.id(), 0, 100_000).join();
    }

    /** Compacts {@code count} records from the {@code first}th record of the index on (all WAL records). */
    private IndexRecord compact(int first, int count) {
        List<IndexRecord> run = records().subList(first, first + count);
        return segmentSwitch.commit(run, segmentOf(run), FORMAT).join();
    }

    /** Compacts the first run of up to {@code max} WAL records that leaves the last three alone, if there is one. */
    private void compactOldRun(int max) {
        List<IndexRecord> all = records();
        List<IndexRecord> run = new ArrayList<>();
        for (int i = 0; i < all.size() - 3 && run.size() < max; i++) {
            if (all.get(i).value().isCompacted()) {
                if (!run.isEmpty()) {
                    break;
                }
                continue;
            }
            run.add(all.get(i));
        }
        if (!run.isEmpty()) {
            segmentSwitch.commit(run, segmentOf(run), FORMAT).join();
        }
    }

    /** The entries of the records, read through the stream, in a segment, stored. */
    private SegmentFile segmentOf(List<IndexRecord> run) {
        long from = run.get(0).startOffset();
        long to = run.get(run.size() - 1).endOffset();
        ObjectUpload out = stores.objects().newUpload(SegmentKeys.newKey(stream.id(), from, to, FORMAT.name()));
        try (SegmentWriter writer = FORMAT.newWriter(stream.id(), from, out)) {
            long at = from;
            while (at < to) {
                List<LogEntry> entries = stream.read(at, 100, 16 << 20).join();
                for (LogEntry e : entries) {
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

    private List<Row> readAll(long from, int maxEntries, long maxBytes) {
        return StreamRows.readAll(stream, from, maxEntries, maxBytes);
    }
}
