package dev.lakestream.core.compaction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.lakestream.core.Lakestream;
import dev.lakestream.core.LakestreamConfig;
import dev.lakestream.core.StreamLog;
import dev.lakestream.core.catalog.StreamInfo;
import dev.lakestream.core.index.IndexRecord;
import dev.lakestream.core.index.IndexValue;
import dev.lakestream.core.index.OffsetIndex;
import dev.lakestream.core.log.AppendResult;
import dev.lakestream.core.log.HeldCommitsMetadataStore;
import dev.lakestream.core.log.LakestreamLogTest;
import dev.lakestream.core.log.LogEntry;
import dev.lakestream.core.log.NonClosingMetadataStore;
import dev.lakestream.core.log.StreamRows;
import dev.lakestream.core.log.StreamRows.Row;
import dev.lakestream.core.metrics.CompactionMetrics;
import dev.lakestream.core.segment.EntryListSegmentFormat;
import dev.lakestream.core.segment.SegmentFormats;
import dev.lakestream.core.wal.WalWriterConfig;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The compactor as a host runs it: passes over the streams it is given, on its own thread, while producers append and
 * readers tail; every offset read once and the same bytes, the WAL left holding only the young records, the metrics
 * counting what was done, a failing stream not stopping the others, and two compactors of one stream (an ownership
 * move) leaving it whole. Through the test format; subclasses run it on the embedded pair and on S3Proxy + Oxia.
 */
public abstract class CompactionServiceTest {

    protected abstract LakestreamLogTest.Stores openStores() throws Exception;

    private static final LakestreamConfig CONFIG = LakestreamConfig.DEFAULT
            .withMetadataRoot("/compaction-service")
            .withWriter(new WalWriterConfig(64 << 10, Duration.ofMillis(2), 64L << 20, WalWriterConfig.WhenFull.WAIT));

    /** Everything is old enough at once; small segments; passes back to back. */
    private static final CompactionConfig COMPACTION = CompactionConfig.DEFAULT
            .withDelay(Duration.ZERO)
            .withInterval(Duration.ofMillis(20))
            .withSegmentSize(256 << 10)
            .withFormat(new EntryListSegmentFormat().name());

    private static final SegmentFormats FORMATS = SegmentFormats.of(List.of(new EntryListSegmentFormat()));

    private LakestreamLogTest.Stores stores;
    private Lakestream lakestream;
    private final List<AutoCloseable> toClose = new ArrayList<>();
    private final Random random = new Random(20261204L);

    @BeforeEach
    void open() throws Exception {
        stores = openStores();
        lakestream = Lakestream.open(stores.objects(), stores.metadata(), CONFIG);
    }

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : toClose.reversed()) {
            c.close();
        }
        lakestream.close();
        stores.close();
    }

    private StreamLog newStream() {
        StreamInfo info = lakestream
                .catalog()
                .create("test", "c-" + System.nanoTime(), Map.of())
                .join();
        return lakestream.stream(info);
    }

    private CompactionService start(Lakestream on, CompactionConfig config, Set<Long> streams) {
        CompactionService service = CompactionService.start(on, config, () -> streams, FORMATS, Clock.systemUTC());
        toClose.add(service);
        return service;
    }

    @Test
    void compactsWhileProducersAppendAndReadersTailAndEveryOffsetIsReadOnce() throws Exception {
        StreamLog stream = newStream();
        List<Row> expected = new ArrayList<>();
        AtomicBoolean writing = new AtomicBoolean(true);
        ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
        List<List<Row>> seen = new ArrayList<>();
        List<Thread> readers = new ArrayList<>();
        for (long[] b : new long[][] {{1, 1}, {10, 50_000}, {1000, 16 << 20}}) {
            List<Row> mine = new ArrayList<>();
            seen.add(mine);
            readers.add(Thread.ofPlatform().start(() -> tail(stream, (int) b[0], b[1], writing, mine, errors)));
        }
        CompactionService service = start(lakestream, COMPACTION, Set.of(stream.id()));
        assertThat(service.compacts()).isTrue();
        for (int round = 0; round < 40; round++) {
            append(stream, expected, 6);
            Thread.sleep(5);
        }
        // Let the compactor catch up with everything (the delay is 0: the last record too).
        try {
            await("the compactor catching up with every record")
                    .atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(20))
                    .until(() -> walRecords(stream) == 0);
        } catch (ConditionTimeoutException e) {
            // The readers are stopped all the same; the assertions below say what they met and what was left.
        }
        writing.set(false);
        for (Thread r : readers) {
            r.join();
        }
        assertThat(errors).isEmpty();
        assertThat(walRecords(stream)).as("WAL records left").isZero();
        for (List<Row> mine : seen) {
            assertThat(mine).containsExactlyElementsOf(expected);
        }
        assertThat(readAll(stream)).containsExactlyElementsOf(expected);
        CompactionMetrics m = lakestream.metrics().compaction();
        assertThat(m.segments()).isGreaterThan(1);
        assertThat(m.failures()).isZero();
        assertThat(m.entries()).isEqualTo(expected.size());
        assertThat(lakestream.metrics().prometheusText())
                .contains("lakestream_compaction_segments_written_total " + m.segments())
                .contains("lakestream_compaction_lag_seconds{stream_id=\"" + stream.id() + "\"}");
    }

    @Test
    void aStreamThatCannotBeReadIsReportedAndTheOthersAreStillCompacted() throws Exception {
        StreamLog broken = newStream();
        StreamLog fine = newStream();
        List<Row> brokenRows = new ArrayList<>();
        List<Row> fineRows = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            append(broken, brokenRows, 3);
            append(fine, fineRows, 3);
        }
        // The broken stream's first WAL object is gone (e.g. removed by hand).
        IndexRecord first =
                new OffsetIndex(stores.metadata()).first(broken.id()).join().orElseThrow();
        stores.objects().delete(List.of(first.value().location())).join();
        CompactionService service =
                start(lakestream, COMPACTION.withInterval(Duration.ofHours(1)), Set.of(broken.id(), fine.id()));
        service.runOnce().join();
        CompactionMetrics m = lakestream.metrics().compaction();
        assertThat(m.failures()).isPositive();
        assertThat(m.lastError())
                .contains("stream " + broken.id())
                .contains(first.value().location());
        assertThat(walRecords(fine)).isZero();
        assertThat(readAll(fine)).containsExactlyElementsOf(fineRows);
        assertThat(new OffsetIndex(stores.metadata()).first(broken.id()).join().orElseThrow())
                .as("the broken stream keeps its WAL records")
                .isEqualTo(first);
    }

    @Test
    void twoCompactorsOfOneStreamLeaveItWhole() throws Exception {
        StreamLog stream = newStream();
        List<Row> expected = new ArrayList<>();
        // A second process on the same stores: the stream's old owner and its new one, both compacting.
        Lakestream other = Lakestream.open(stores.objects(), stores.metadata(), CONFIG);
        toClose.add(other);
        start(lakestream, COMPACTION.withSegmentSize(64 << 10), Set.of(stream.id()));
        start(other, COMPACTION.withSegmentSize(100 << 10), Set.of(stream.id()));
        for (int round = 0; round < 30; round++) {
            append(stream, expected, 5);
            Thread.sleep(5);
        }
        await("the compactors catching up with every record")
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> walRecords(stream) == 0);
        assertThat(readAll(stream)).containsExactlyElementsOf(expected);
        assertThat(lakestream.metrics().compaction().segments()
                        + other.metrics().compaction().segments())
                .isGreaterThan(1);
    }

    @Test
    void aSlowStreamsSmallSegmentsAreMergedAndGarbageCollectionTakesTheMergedOnes() throws Exception {
        StreamLog stream = newStream();
        List<Row> expected = new ArrayList<>();
        CompactionService service = start(
                lakestream,
                COMPACTION.withInterval(Duration.ofHours(1)).withSegmentSize(4L << 20),
                Set.of(stream.id()));
        // A pass after each few appends: each leaves one small segment, and small ones merge.
        int passes = 20;
        for (int i = 0; i < passes; i++) {
            append(stream, expected, 2);
            append(stream, expected, 1);
            service.runOnce().join();
        }
        CompactionMetrics m = lakestream.metrics().compaction();
        assertThat(m.failures()).isZero();
        assertThat(m.merges()).isPositive();
        long compacted = new OffsetIndex(stores.metadata())
                .recordsFrom(stream.id(), 0, 100_000).join().stream()
                        .filter(r -> r.value().isCompacted())
                        .count();
        assertThat(compacted).as("segments left of %d written", m.segments()).isLessThan(m.segments());
        assertThat(compacted).isLessThanOrEqualTo(10);
        assertThat(readAll(stream)).containsExactlyElementsOf(expected);
        // The merged-away segments go at GC's first run after the margins; what the index names stays.
        dev.lakestream.core.gc.WalGarbageCollector gc = new dev.lakestream.core.gc.WalGarbageCollector(
                stores.objects(),
                stores.metadata(),
                CONFIG.metadataRoot(),
                dev.lakestream.core.gc.GcConfig.DEFAULT,
                Clock.offset(Clock.systemUTC(), Duration.ofHours(2)));
        assertThat(gc.runOnce(dev.lakestream.core.gc.DeleteGate.UNLIMITED)
                        .join()
                        .deletedSegments())
                .isEqualTo(m.mergedSegments());
        assertThat(readAll(stream)).containsExactlyElementsOf(expected);
    }

    @Test
    void aTrimPastHalfOfASegmentRewritesItsTailAndATrimToTheEndKeepsTheLastEntryAlone() throws Exception {
        StreamLog stream = newStream();
        List<Row> expected = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            append(stream, expected, 4);
        }
        CompactionService service = start(
                lakestream,
                COMPACTION.withInterval(Duration.ofHours(1)).withSegmentSize(64L << 20),
                Set.of(stream.id()));
        service.runOnce().join();
        OffsetIndex index = new OffsetIndex(stores.metadata());
        List<IndexRecord> all = index.recordsFrom(stream.id(), 0, 1000).join();
        assertThat(all).hasSize(1);
        IndexRecord whole = all.get(0);
        assertThat(whole.value().isCompacted()).isTrue();

        // A trim past three quarters of it: the record is rewritten from the entry holding the trim point.
        Row at = expected.get(expected.size() * 3 / 4);
        stream.trim(at.offset()).join();
        service.runOnce().join();
        IndexRecord tail = index.recordsFrom(stream.id(), 0, 1000).join().get(0);
        assertThat(tail.value().location()).isNotEqualTo(whole.value().location());
        assertThat(tail.startOffset()).isEqualTo(at.offset());
        assertThat(tail.endOffset()).isEqualTo(whole.endOffset());
        assertThat(tail.value().fileSize()).isLessThan(whole.value().fileSize());
        assertThat(lakestream.metrics().compaction().tailRewrites()).isEqualTo(1);
        assertThat(StreamRows.readAll(stream, at.offset(), 1000, 1 << 20))
                .containsExactlyElementsOf(expected.subList(expected.indexOf(at), expected.size()));

        // Trimmed to its end (a consumed topic without retention): only the last entry stays, for the stream's end.
        long end = stream.endOffset().join();
        stream.trim(end).join();
        service.runOnce().join();
        IndexRecord last = index.recordsFrom(stream.id(), 0, 1000).join().get(0);
        assertThat(last.startOffset())
                .isEqualTo(expected.get(expected.size() - 1).offset());
        assertThat(last.endOffset()).isEqualTo(end);
        assertThat(lakestream.metrics().compaction().tailRewrites()).isEqualTo(2);
        // The stream goes on from its end.
        List<Row> more = new ArrayList<>(List.of(expected.get(expected.size() - 1)));
        append(stream, more, 3);
        assertThat(StreamRows.readAll(stream, end, 1000, 1 << 20)).containsExactlyElementsOf(more.subList(1, 4));
        // GC takes the two segments the rewrites replaced, once its margins have passed.
        dev.lakestream.core.gc.WalGarbageCollector gc = new dev.lakestream.core.gc.WalGarbageCollector(
                stores.objects(),
                stores.metadata(),
                CONFIG.metadataRoot(),
                dev.lakestream.core.gc.GcConfig.DEFAULT,
                Clock.offset(Clock.systemUTC(), Duration.ofHours(2)));
        assertThat(gc.runOnce(dev.lakestream.core.gc.DeleteGate.UNLIMITED)
                        .join()
                        .deletedSegments())
                .isEqualTo(2);
        assertThat(stores.objects().head(last.value().location()).join()).isPresent();
    }

    @Test
    void aFormatNotInstalledTurnsCompactionOffWithAClearMessage() {
        CompactionService service = start(lakestream, CompactionConfig.DEFAULT, Set.of());
        assertThat(service.compacts()).isFalse();
        assertThat(lakestream.metrics().compaction().active()).isFalse();
        assertThatThrownBy(() -> service.runOnce().join())
                .hasMessageContaining("segment format 'parquet'")
                .hasMessageContaining("not installed");
    }

    @Test
    void aVoidEntryStaysVoidInTheSegmentThatHoldsIt() throws Exception {
        StreamLog stream = newStream();
        // A stale owner whose commit is held past the takeover (docs/layout.md §5, seals): it lands void.
        HeldCommitsMetadataStore held = new HeldCommitsMetadataStore(new NonClosingMetadataStore(stores.metadata()));
        Lakestream staleOwner = Lakestream.open(stores.objects(), held, CONFIG);
        toClose.add(staleOwner);
        StreamLog stale = staleOwner.stream(stream.id());
        stale.fence().join();
        stale.append(1, LakestreamLogTest.bytes("a")).join();
        held.hold();
        CompletableFuture<AppendResult> late = stale.append(1, LakestreamLogTest.bytes("late"));
        held.firstHeld().get(10, TimeUnit.SECONDS);
        stream.fence().join();
        stream.append(1, LakestreamLogTest.bytes("b")).join();
        held.letGo();
        assertThatThrownBy(() -> late.get(30, TimeUnit.SECONDS)).hasMessageContaining("void");
        stream.append(1, LakestreamLogTest.bytes("c")).join();
        assertThat(texts(stream)).containsExactly("a@0", "b@1", "VOID@2", "c@3");

        start(lakestream, COMPACTION, Set.of(stream.id()));
        await("the compactor taking every record")
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> walRecords(stream) == 0);

        List<IndexRecord> compacted = new OffsetIndex(stores.metadata())
                .recordsFrom(stream.id(), 0, 100)
                .join();
        assertThat(compacted)
                .extracting(r -> r.value().extraData().get(IndexValue.EXTRA_VOIDED))
                .contains("2-3");
        assertThat(texts(stream)).containsExactly("a@0", "b@1", "VOID@2", "c@3");
        Lakestream other = Lakestream.open(stores.objects(), new NonClosingMetadataStore(stores.metadata()), CONFIG);
        toClose.add(other);
        assertThat(texts(other.stream(stream.id()))).containsExactly("a@0", "b@1", "VOID@2", "c@3");
    }

    private static List<String> texts(StreamLog stream) {
        List<String> out = new ArrayList<>();
        long at = 0;
        while (true) {
            List<LogEntry> batch = stream.read(at, 100, 1 << 20).join();
            if (batch.isEmpty()) {
                return out;
            }
            for (LogEntry e : batch) {
                out.add((e.voided() ? "VOID" : e.payload().toString(StandardCharsets.UTF_8)) + "@" + e.offset());
                e.payload().release();
                at = e.endOffset();
            }
        }
    }

    // ------------------------------------------------------------------ helpers

    private void append(StreamLog stream, List<Row> expected, int entries) {
        StreamRows.append(stream, expected, entries, random, 60_000);
    }

    private long walRecords(StreamLog stream) {
        return new OffsetIndex(stores.metadata())
                .recordsFrom(stream.id(), 0, 100_000).join().stream()
                        .filter(r -> !r.value().isCompacted())
                        .count();
    }

    private static void tail(
            StreamLog stream,
            int maxEntries,
            long maxBytes,
            AtomicBoolean writing,
            List<Row> out,
            ConcurrentLinkedQueue<Throwable> errors) {
        try {
            long at = 0;
            while (true) {
                boolean last = !writing.get();
                long end = stream.endOffset().join();
                while (at < end) {
                    List<LogEntry> entries =
                            stream.read(at, maxEntries, maxBytes).join();
                    if (entries.isEmpty()) {
                        throw new AssertionError("empty read at " + at + " below the end " + end);
                    }
                    for (LogEntry e : entries) {
                        out.add(StreamRows.row(e));
                        at = e.endOffset();
                    }
                }
                if (last) {
                    return;
                }
                Thread.sleep(3);
            }
        } catch (Throwable t) {
            errors.add(t);
        }
    }

    private static List<Row> readAll(StreamLog stream) {
        return StreamRows.readAll(stream, 0, 1000, 1 << 20);
    }
}
