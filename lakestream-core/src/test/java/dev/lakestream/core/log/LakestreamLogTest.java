package dev.lakestream.core.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lakestream.core.Lakestream;
import dev.lakestream.core.LakestreamConfig;
import dev.lakestream.core.StreamLog;
import dev.lakestream.core.catalog.CatalogException;
import dev.lakestream.core.catalog.StreamInfo;
import dev.lakestream.core.cursor.DurableCursor;
import dev.lakestream.core.index.IndexRecord;
import dev.lakestream.core.index.OffsetIndex;
import dev.lakestream.core.metadata.MetadataStore;
import dev.lakestream.core.objectstore.ObjectInfo;
import dev.lakestream.core.objectstore.ObjectStore;
import dev.lakestream.core.wal.ReaderConfig;
import dev.lakestream.core.wal.WalWriterConfig;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The Lakestream log, end to end on real stores: the subclasses run it on the embedded pair (filesystem +
 * embedded metadata) and on the remote pair (S3Proxy + the real Oxia server).
 */
public abstract class LakestreamLogTest {

    /** Opens a fresh pair of stores for one test; both instances of a test share them. */
    protected abstract Stores openStores() throws Exception;

    /** A second metadata-store client on the same data, as another process would have (or the same one). */
    protected abstract MetadataStore secondMetadataClient(Stores stores) throws Exception;

    public record Stores(ObjectStore objects, MetadataStore metadata) implements AutoCloseable {
        @Override
        public void close() {
            metadata.close();
            objects.close();
        }
    }

    protected Stores stores;
    private final List<AutoCloseable> toClose = new ArrayList<>();

    private static final LakestreamConfig FAST = LakestreamConfig.DEFAULT.withWriter(
            new WalWriterConfig(256 << 10, Duration.ofMillis(5), 64L << 20, WalWriterConfig.WhenFull.WAIT));

    @BeforeEach
    void open() throws Exception {
        root = "/lakestream-test-" + TEST_ROOTS.incrementAndGet() + "-" + System.nanoTime();
        stores = openStores();
    }

    @AfterEach
    void close() throws Exception {
        Collections.reverse(toClose);
        for (AutoCloseable c : toClose) {
            c.close();
        }
        stores.close();
    }

    private static final java.util.concurrent.atomic.AtomicLong TEST_ROOTS =
            new java.util.concurrent.atomic.AtomicLong();
    /** Tests of one class share one metadata server: each test gets its own catalog root. */
    private String root;

    /** The config with this test's own metadata root. */
    protected LakestreamConfig own(LakestreamConfig config) {
        return config.withMetadataRoot(root);
    }

    protected Lakestream log(LakestreamConfig config) {
        Lakestream l = Lakestream.open(stores.objects(), stores.metadata(), own(config));
        toClose.add(l);
        return l;
    }

    private StreamLog newStream(Lakestream log, String name) {
        StreamInfo info = log.catalog().create("test", name, Map.of()).join();
        return log.stream(info);
    }

    public static ByteBuf bytes(String s) {
        return Unpooled.wrappedBuffer(s.getBytes(StandardCharsets.UTF_8));
    }

    static String text(LogEntry e) {
        String s = e.payload().toString(StandardCharsets.UTF_8);
        e.payload().release();
        return s;
    }

    private static List<LogEntry> readAll(StreamLog s, long from) {
        List<LogEntry> all = new ArrayList<>();
        long next = from;
        while (true) {
            List<LogEntry> batch = s.read(next, 100, 1 << 20).join();
            if (batch.isEmpty()) {
                return all;
            }
            all.addAll(batch);
            next = batch.get(batch.size() - 1).endOffset();
        }
    }

    @Test
    void appendsOfManyStreamsReadBackInOrderWithDenseOffsets() {
        Lakestream log = log(FAST);
        List<StreamLog> streams = new ArrayList<>();
        for (int s = 0; s < 5; s++) {
            streams.add(newStream(log, "s" + s));
        }
        List<CompletableFuture<AppendResult>> results = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            for (int s = 0; s < streams.size(); s++) {
                results.add(streams.get(s).append(1 + i % 3, bytes("s" + s + "-" + i)));
            }
        }
        CompletableFuture.allOf(results.toArray(CompletableFuture[]::new)).join();

        for (int s = 0; s < streams.size(); s++) {
            List<LogEntry> entries = readAll(streams.get(s), 0);
            assertThat(entries).hasSize(200);
            long expectedOffset = 0;
            for (int i = 0; i < 200; i++) {
                LogEntry e = entries.get(i);
                assertThat(e.offset()).isEqualTo(expectedOffset);
                assertThat(e.records()).isEqualTo(1 + i % 3);
                assertThat(text(e)).isEqualTo("s" + s + "-" + i);
                expectedOffset += e.records();
            }
            assertThat(streams.get(s).endOffset().join()).isEqualTo(expectedOffset);
        }
        // The writer left its objects in the cache: the tail reads above never went to the object store.
        assertThat(log.cacheStats().hits()).isPositive();
        assertThat(log.cacheStats().misses()).isZero();
        assertThat(log.cacheStats().bytes()).isPositive();
    }

    @Test
    void completionsOfOneStreamArriveInAppendOrder() {
        Lakestream log = log(FAST);
        StreamLog s = newStream(log, "ordered");
        List<Long> completed = Collections.synchronizedList(new ArrayList<>());
        List<CompletableFuture<AppendResult>> fs = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            fs.add(s.append(1, bytes("x" + i)).whenComplete((r, e) -> completed.add(r.offset())));
        }
        CompletableFuture.allOf(fs.toArray(CompletableFuture[]::new)).join();
        assertThat(completed).hasSize(500).isSorted();
        for (int i = 0; i < 500; i++) {
            assertThat(fs.get(i).join().offset()).isEqualTo(i);
        }
    }

    @Test
    void appendsFromManyThreadsKeepEachStreamsOrder() throws Exception {
        // Small objects: batches are sealed by whichever thread fills them, several in flight at once.
        Lakestream log = log(LakestreamConfig.DEFAULT.withWriter(
                new WalWriterConfig(4 << 10, Duration.ofMillis(2), 8L << 20, WalWriterConfig.WhenFull.WAIT)));
        int threads = 4;
        int perThread = 500;
        List<StreamLog> streams = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            streams.add(newStream(log, "threaded-" + t));
        }
        List<List<CompletableFuture<AppendResult>>> results = new ArrayList<>();
        List<List<Long>> completionOrder = new ArrayList<>();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            List<CompletableFuture<AppendResult>> mine = new ArrayList<>();
            List<Long> completed = Collections.synchronizedList(new ArrayList<>());
            results.add(mine);
            completionOrder.add(completed);
            StreamLog s = streams.get(t);
            workers.add(Thread.ofPlatform().start(() -> {
                for (int i = 0; i < perThread; i++) {
                    mine.add(s.append(1, bytes("x".repeat(100) + i)).whenComplete((r, e) -> completed.add(r.offset())));
                }
            }));
        }
        for (Thread w : workers) {
            w.join();
        }
        for (int t = 0; t < threads; t++) {
            CompletableFuture.allOf(results.get(t).toArray(CompletableFuture[]::new))
                    .join();
            for (int i = 0; i < perThread; i++) {
                assertThat(results.get(t).get(i).join().offset())
                        .as("stream %d append %d", t, i)
                        .isEqualTo(i);
            }
            assertThat(completionOrder.get(t)).hasSize(perThread).isSorted();
        }
    }

    @Test
    void flushesBySizeAndDeadlineIntoSharedObjects() {
        // 10 KiB objects: 100 appends of 1 KiB to two streams need about 20 objects, each shared. The deadline
        // policy, so that only size and deadline seal (the adaptive policy is WriterFlushPolicyTest's).
        Lakestream log = log(LakestreamConfig.DEFAULT.withWriter(
                new WalWriterConfig(10 << 10, Duration.ofSeconds(30), 1L << 20, WalWriterConfig.WhenFull.WAIT)
                        .withFlushPolicy(WalWriterConfig.FlushPolicy.DEADLINE)));
        StreamLog a = newStream(log, "a");
        StreamLog b = newStream(log, "b");
        String kib = "k".repeat(1024);
        List<CompletableFuture<AppendResult>> fs = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            fs.add(a.append(1, bytes(kib)));
            fs.add(b.append(1, bytes(kib)));
        }
        // The last object is below the size: only the 30 s deadline or a flush would write it.
        CompletableFuture.allOf(fs.subList(0, 90).toArray(CompletableFuture[]::new))
                .orTimeout(20, TimeUnit.SECONDS)
                .join();
        List<IndexRecord> records =
                new OffsetIndex(stores.metadata()).recordsFrom(a.id(), 0, 1000).join();
        assertThat(records).hasSizeBetween(9, 11);
        assertThat(records).allSatisfy(r -> assertThat(r.value().compact()).isFalse());
        assertThat(listAll(stores.objects())).hasSizeBetween(9, 11);
    }

    @Test
    void largeObjectsAreReadByRangeWithoutFetchingWholeObjects() {
        Lakestream writer = log(LakestreamConfig.DEFAULT.withWriter(
                new WalWriterConfig(4 << 20, Duration.ofMillis(20), 64L << 20, WalWriterConfig.WhenFull.WAIT)));
        StreamLog big = newStream(writer, "big");
        StreamLog small = newStream(writer, "small");
        List<CompletableFuture<AppendResult>> fs = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            fs.add(big.append(1, bytes(i + ":" + "b".repeat(50_000))));
            fs.add(small.append(1, bytes("small-" + i)));
        }
        CompletableFuture.allOf(fs.toArray(CompletableFuture[]::new)).join();

        // A second log with an empty cache and a 64 KiB whole-object limit must use ranged reads.
        Lakestream reader = log(LakestreamConfig.DEFAULT.withReader(new ReaderConfig(0, 64 << 10, 0, 0)));
        List<LogEntry> entries = readAll(reader.stream(small.id()), 0);
        assertThat(entries)
                .extracting(LakestreamLogTest::text)
                .containsExactlyElementsOf(java.util.stream.IntStream.range(0, 40)
                        .mapToObj(i -> "small-" + i)
                        .toList());
        List<LogEntry> bigEntries = readAll(reader.stream(big.id()), 38);
        assertThat(bigEntries).hasSize(2);
        assertThat(text(bigEntries.get(0))).startsWith("38:bbb").hasSize(50_003);
    }

    /** One stream of 8,000 entries of 1 KiB in objects of 4 MiB: each object holds about 4 MiB of the stream. */
    private StreamLog writeOneLargeStream(String name) {
        Lakestream writer = log(LakestreamConfig.DEFAULT.withWriter(
                new WalWriterConfig(4 << 20, Duration.ofMillis(200), 64L << 20, WalWriterConfig.WhenFull.WAIT)));
        StreamLog stream = newStream(writer, name);
        List<CompletableFuture<AppendResult>> fs = new ArrayList<>();
        for (int i = 0; i < 8000; i++) {
            fs.add(stream.append(1, bytes(entry(i))));
        }
        CompletableFuture.allOf(fs.toArray(CompletableFuture[]::new)).join();
        return stream;
    }

    private static String entry(int i) {
        String head = i + ":";
        return head + "x".repeat(1024 - head.length());
    }

    /** Reads the stream from offset 0 as a broker's dispatcher does, 50 entries at a time; returns the reads made. */
    private int readInSmallSteps(Lakestream reader, long streamId) {
        StreamLog s = reader.stream(streamId);
        long next = 0;
        int reads = 0;
        while (next < 8000) {
            List<LogEntry> batch = s.read(next, 50, 5 << 20).join();
            reads++;
            assertThat(batch).as("read %d from offset %d", reads, next).isNotEmpty();
            for (LogEntry e : batch) {
                assertThat(e.offset()).isEqualTo(next);
                assertThat(text(e)).isEqualTo(entry((int) next));
                next++;
            }
        }
        return reads;
    }

    private Lakestream reader(CountingObjectStore objects, long readAheadBytes) {
        // An empty cache of its own and a 64 KiB whole-object limit: the 4 MiB objects are read by range.
        Lakestream l = Lakestream.open(
                objects,
                stores.metadata(),
                own(LakestreamConfig.DEFAULT.withReader(new ReaderConfig(32 << 20, 64 << 10, 4, readAheadBytes))));
        toClose.add(l);
        return l;
    }

    @Test
    void aSequentialReaderOfLargeObjectsReadsAheadInLargeRanges() {
        StreamLog stream = writeOneLargeStream("read-ahead");

        CountingObjectStore without = new CountingObjectStore(stores.objects());
        int reads = readInSmallSteps(reader(without, 0), stream.id());
        assertThat(reads).isEqualTo(160);
        // Without read-ahead every read is a GET of its own 50 KiB (plus one index GET per object).
        assertThat(without.rangedGets()).hasSizeGreaterThanOrEqualTo(reads);

        CountingObjectStore with = new CountingObjectStore(stores.objects());
        assertThat(readInSmallSteps(reader(with, 4 << 20), stream.id())).isEqualTo(reads);
        List<Long> gets = with.rangedGets();
        // A GET per part (a quarter of the 4 MiB window) of the 8 MiB, shorter ones at the end of the stream's bytes
        // in each object, the first two reads' own GETs, one index GET per object.
        assertThat(gets).as("ranged GETs with read-ahead: %s", gets).hasSizeLessThanOrEqualTo(24);
        long fetched = gets.stream().mapToLong(Long::longValue).sum();
        assertThat(fetched).as("bytes fetched for 8,000 KiB of entries").isLessThan(8_000L * 1024 * 12 / 10);
    }

    @Test
    void aSequentialReaderScansAboutAsManyIndexRecordsAsItsReadsNeed() {
        // Objects of 64 KiB: about 125 index records of about 64 entries each.
        Lakestream writer = log(LakestreamConfig.DEFAULT.withWriter(
                new WalWriterConfig(64 << 10, Duration.ofMillis(200), 64L << 20, WalWriterConfig.WhenFull.WAIT)));
        StreamLog stream = newStream(writer, "many-records");
        List<CompletableFuture<AppendResult>> fs = new ArrayList<>();
        for (int i = 0; i < 8000; i++) {
            fs.add(stream.append(1, bytes(entry(i))));
        }
        CompletableFuture.allOf(fs.toArray(CompletableFuture[]::new)).join();
        long records = new OffsetIndex(stores.metadata())
                .recordsFrom(stream.id(), 0, 1000)
                .join()
                .size();
        assertThat(records).isGreaterThan(100);

        NonClosingMetadataStore counting = new NonClosingMetadataStore(stores.metadata());
        Lakestream reader = Lakestream.open(stores.objects(), counting, own(LakestreamConfig.DEFAULT));
        toClose.add(reader);
        int reads = readInSmallSteps(reader, stream.id());
        // Each read of 50 entries needs 1 or 2 records; the scan adds the 4 records prefetched ahead. It used to scan
        // 36 records a read whatever their size.
        assertThat(counting.recordsScanned())
                .as("index records scanned by %d reads of %d records", reads, records)
                .isLessThanOrEqualTo(8L * reads);
    }

    @Test
    void aReadAheadThatFailsIsFetchedAgainByTheReadThatNeedsIt() {
        StreamLog stream = writeOneLargeStream("read-ahead-fails");
        CountingObjectStore failing = new CountingObjectStore(stores.objects());
        // Read-ahead GETs are of 1 MiB (a quarter of the window) or less at the end of the stream's bytes in an
        // object; the reads' own are 50 KiB, the objects' indexes smaller.
        failing.failRangedGets(length -> length > 256 << 10);

        assertThat(readInSmallSteps(reader(failing, 4 << 20), stream.id())).isEqualTo(160);
        assertThat(failing.rangedGets()).as("read-ahead was tried").anyMatch(length -> length > 256 << 10);
    }

    @Test
    void twoWritersOnOneStreamNeverOverlapAndLoseNothing() throws Exception {
        Lakestream one = log(FAST);
        MetadataStore otherClient = secondMetadataClient(stores);
        toClose.add(otherClient);
        Lakestream two = Lakestream.open(stores.objects(), otherClient, own(FAST));
        toClose.add(two);
        StreamInfo info = one.catalog().create("test", "shared", Map.of()).join();
        StreamLog viaOne = one.stream(info);
        StreamLog viaTwo = two.stream(info);

        List<CompletableFuture<AppendResult>> fs = new ArrayList<>();
        List<String> payloads = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            String p1 = "one-" + i;
            String p2 = "two-" + i;
            payloads.add(p1);
            payloads.add(p2);
            fs.add(viaOne.append(1 + i % 2, bytes(p1)));
            fs.add(viaTwo.append(1 + i % 2, bytes(p2)));
        }
        CompletableFuture.allOf(fs.toArray(CompletableFuture[]::new)).join();

        // Every acknowledged append is readable exactly once, at the offset it was acknowledged with.
        Map<Long, String> byOffset = new java.util.HashMap<>();
        for (LogEntry e : readAll(viaOne, 0)) {
            assertThat(byOffset.put(e.offset(), text(e))).isNull();
        }
        assertThat(byOffset).hasSize(600);
        Set<Long> ranges = new HashSet<>();
        for (int i = 0; i < fs.size(); i++) {
            AppendResult r = fs.get(i).join();
            assertThat(byOffset.get(r.offset())).isEqualTo(payloads.get(i));
            for (long o = r.offset(); o < r.endOffset(); o++) {
                assertThat(ranges.add(o)).as("offset %d assigned twice", o).isTrue();
            }
        }
        assertThat(ranges).hasSize(900);
    }

    @Test
    void aTailingReaderIsWokenByLocalAndRemoteAppends() throws Exception {
        Lakestream one = log(FAST);
        MetadataStore otherClient = secondMetadataClient(stores);
        toClose.add(otherClient);
        Lakestream two = Lakestream.open(stores.objects(), otherClient, own(FAST));
        toClose.add(two);
        StreamInfo info = one.catalog().create("test", "tail", Map.of()).join();

        CompletableFuture<Long> local = one.stream(info).waitBeyond(0);
        assertThat(local).isNotDone();
        one.stream(info).append(1, bytes("a")).join();
        assertThat(local.get(5, TimeUnit.SECONDS)).isEqualTo(1);

        CompletableFuture<Long> remote = one.stream(info).waitBeyond(1);
        assertThat(remote).isNotDone();
        two.stream(info).append(1, bytes("b")).join();
        assertThat(remote.get(5, TimeUnit.SECONDS)).isEqualTo(2);
    }

    @Test
    void trimmingMovesTheStartButNeverRestartsOffsets() {
        Lakestream log = log(FAST);
        StreamLog s = newStream(log, "trim");
        for (int i = 0; i < 10; i++) {
            s.append(1, bytes("e" + i)).join();
        }
        assertThat(s.startOffset().join()).isZero();
        assertThat(s.softTrim(4).join()).isEqualTo(4);
        assertThat(s.softTrim(2).join()).as("never backwards").isEqualTo(4);
        assertThat(s.startOffset().join()).isEqualTo(4);

        s.trim(10).join();
        assertThat(s.startOffset().join()).isEqualTo(10);
        assertThat(new OffsetIndex(stores.metadata())
                        .recordsFrom(s.id(), 0, 100)
                        .join())
                .as("the last index record survives")
                .hasSize(1);
        assertThat(s.append(1, bytes("after")).join().offset()).isEqualTo(10);
        assertThat(readAll(s, 10)).extracting(LakestreamLogTest::text).containsExactly("after");
    }

    @Test
    void catalogTombstonesKeepDeletedDataFromComingBack() {
        Lakestream log = log(FAST);
        StreamInfo first = log.catalog()
                .create("ns", "topic/with/slashes", Map.of("k", "v"))
                .join();
        assertThatThrownBy(() -> log.catalog()
                        .create("ns", "topic/with/slashes", Map.of())
                        .join())
                .hasCauseInstanceOf(CatalogException.class)
                .hasMessageContaining("already exists");
        log.stream(first).append(1, bytes("old")).join();
        assertThat(log.catalog().list("ns").join()).extracting(StreamInfo::name).containsExactly("topic/with/slashes");

        log.catalog().delete("ns", "topic/with/slashes").join();
        assertThatThrownBy(() -> log.catalog().open("ns", "topic/with/slashes").join())
                .hasCauseInstanceOf(CatalogException.class)
                .hasMessageContaining("was deleted");
        assertThat(log.catalog().list("ns").join()).isEmpty();

        StreamInfo second =
                log.catalog().create("ns", "topic/with/slashes", Map.of()).join();
        assertThat(second.id()).isNotEqualTo(first.id()).isGreaterThan(first.id());
        assertThat(log.stream(second).read(0, 10, 1 << 20).join()).isEmpty();
    }

    @Test
    void durableCursorsSurviveReopenWithHolesAndProperties() {
        Lakestream log = log(FAST);
        StreamLog s = newStream(log, "cursors");
        DurableCursor c = s.openCursor("sub", 0).join();
        c.ack(0, 5).join();
        c.ack(7, 8).join();
        c.ack(10, 12).join();
        c.markDelete(5, Map.of("ledger", 3L)).join();
        c.setProperties(Map.of("owner", "me")).join();
        c.close().join();

        DurableCursor back = s.openCursor("sub", 0).join();
        assertThat(back.ackedBefore()).isEqualTo(5);
        assertThat(back.isAcked(6)).isFalse();
        assertThat(back.isAcked(7)).isTrue();
        assertThat(back.isAcked(11)).isTrue();
        assertThat(back.positionProperties()).containsEntry("ledger", 3L);
        assertThat(back.properties()).containsEntry("owner", "me");
        back.ack(5, 7).join();
        assertThat(back.ackedBefore())
                .as("closing the gap moves the mark-delete point")
                .isEqualTo(8);
        assertThat(s.cursorNames().join()).containsExactly("sub");
        assertThat(s.deleteCursor("sub").join()).isTrue();
        assertThat(s.cursorNames().join()).isEmpty();
    }

    @Test
    void aFencedWriterIsRefused() throws Exception {
        Lakestream oldOwner = log(FAST);
        MetadataStore otherClient = secondMetadataClient(stores);
        toClose.add(otherClient);
        Lakestream newOwner = Lakestream.open(stores.objects(), otherClient, own(FAST));
        toClose.add(newOwner);
        StreamInfo info = oldOwner.catalog().create("test", "fenced", Map.of()).join();

        assertThat(oldOwner.stream(info).fence().join()).isEqualTo(1);
        oldOwner.stream(info).append(1, bytes("before")).join();
        assertThat(newOwner.stream(info).fence().join()).isEqualTo(2);

        // The old owner learns of the fence through a notification: within a bounded time, it is refused.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        Throwable refused = null;
        while (refused == null && System.nanoTime() < deadline) {
            try {
                oldOwner.stream(info).append(1, bytes("late")).join();
            } catch (CompletionException e) {
                refused = e.getCause();
            }
        }
        assertThat(refused).isInstanceOf(StreamFencedException.class).hasMessageContaining("epoch is 2");
        assertThat(newOwner.stream(info).append(1, bytes("new")).join().offset())
                .isGreaterThanOrEqualTo(1);
    }

    @Test
    void aMissingOrCorruptObjectIsAnErrorNamingStreamOffsetAndObject() {
        Lakestream log = log(FAST);
        StreamLog s = newStream(log, "broken");
        s.append(1, bytes("one")).join();
        IndexRecord record = new OffsetIndex(stores.metadata())
                .recordsFrom(s.id(), 0, 1)
                .join()
                .get(0);
        String key = record.value().location();
        Lakestream fresh = log(LakestreamConfig.DEFAULT);

        stores.objects().put(key, ByteBuffer.wrap(new byte[] {0, 0, 0, 1, 9})).join();
        assertThatThrownBy(() -> fresh.stream(s.id()).read(0, 10, 1 << 20).join())
                .hasCauseInstanceOf(EntryUnreadableException.class)
                .hasMessageContaining("stream " + s.id())
                .hasMessageContaining("offset 0")
                .hasMessageContaining(key);

        stores.objects().delete(List.of(key)).join();
        Lakestream fresh2 = log(LakestreamConfig.DEFAULT);
        assertThatThrownBy(() -> fresh2.stream(s.id()).read(0, 10, 1 << 20).join())
                .hasCauseInstanceOf(EntryUnreadableException.class)
                .hasMessageContaining("missing")
                .hasMessageContaining(key);
    }

    @Test
    void aFullWriterRejectsOrWaitsAsConfigured() {
        // Nothing flushes by size (2 KiB objects) or deadline (30 s): the fourth 600-byte append exceeds 2 KiB pending.
        Lakestream rejecting = Lakestream.open(
                stores.objects(),
                stores.metadata(),
                own(LakestreamConfig.DEFAULT.withWriter(new WalWriterConfig(
                        2 << 10, Duration.ofSeconds(30), 2 << 10, WalWriterConfig.WhenFull.REJECT))));
        StreamLog s = newStream(rejecting, "full");
        String bytes600 = "x".repeat(600);
        List<CompletableFuture<AppendResult>> accepted =
                List.of(s.append(1, bytes(bytes600)), s.append(1, bytes(bytes600)), s.append(1, bytes(bytes600)));
        CompletableFuture<AppendResult> fourth = s.append(1, bytes(bytes600));
        assertThat(fourth).isCompletedExceptionally();
        assertThatThrownBy(fourth::join)
                .hasCauseInstanceOf(AppendRejectedException.class)
                .hasMessageContaining("lakestream.writer.maxPendingBytes");
        assertThat(accepted).allSatisfy(f -> assertThat(f).isNotDone());
        rejecting.close();
        assertThat(accepted.get(2).join().offset()).isEqualTo(2);

        Lakestream waiting = log(LakestreamConfig.DEFAULT.withWriter(
                new WalWriterConfig(1 << 10, Duration.ofMillis(5), 2 << 10, WalWriterConfig.WhenFull.WAIT)));
        StreamLog w = newStream(waiting, "waits");
        List<CompletableFuture<AppendResult>> fs = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            fs.add(w.append(1, bytes(bytes600)));
        }
        CompletableFuture.allOf(fs.toArray(CompletableFuture[]::new))
                .orTimeout(30, TimeUnit.SECONDS)
                .join();
        assertThat(fs.get(49).join().offset()).isEqualTo(49);
    }

    @Test
    void callersMayReleaseTheirBufferAsSoonAsAppendReturnsWhetherTheAppendWasCopiedOrMustWait() {
        // 1 KiB objects and 2 KiB pending: most of these 600-byte appends wait for room, holding their buffers.
        Lakestream log = log(LakestreamConfig.DEFAULT.withWriter(
                new WalWriterConfig(1 << 10, Duration.ofMillis(5), 2 << 10, WalWriterConfig.WhenFull.WAIT)));
        StreamLog s = newStream(log, "ownership");
        List<ByteBuf> payloads = new ArrayList<>();
        List<CompletableFuture<AppendResult>> fs = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            ByteBuf payload = Unpooled.directBuffer(600);
            payload.writeCharSequence(String.format("%03d", i) + "y".repeat(597), StandardCharsets.UTF_8);
            payloads.add(payload);
            fs.add(s.append(1, payload));
            payload.writeCharSequence("not part of the entry", StandardCharsets.UTF_8);
            payload.release();
        }
        ByteBuf released = Unpooled.directBuffer(8).writeLong(1);
        released.release();
        CompletableFuture<AppendResult> unreadable = s.append(1, released);

        CompletableFuture.allOf(fs.toArray(CompletableFuture[]::new))
                .orTimeout(30, TimeUnit.SECONDS)
                .join();
        assertThatThrownBy(unreadable::join)
                .hasCauseInstanceOf(LogException.class)
                .hasMessageContaining("stream " + s.id());
        assertThat(payloads).allSatisfy(p -> assertThat(p.refCnt()).isZero());
        List<String> read = readAll(s, 0).stream().map(LakestreamLogTest::text).toList();
        assertThat(read).hasSize(40);
        for (int i = 0; i < 40; i++) {
            assertThat(read.get(i)).isEqualTo(String.format("%03d", i) + "y".repeat(597));
        }
    }

    @Test
    void findsTheFirstOffsetCommittedAtOrAfterATime() throws Exception {
        Lakestream log = log(FAST);
        StreamLog s = newStream(log, "time");
        List<AppendResult> results = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            results.add(s.append(1, bytes("t" + i)).join());
            if (i == 9) {
                awaitClockPast(results.get(9).timestamp()); // the later half commits strictly later
            }
        }
        long t10 = results.get(10).timestamp();
        long expected = results.stream()
                .filter(r -> r.timestamp() >= t10)
                .findFirst()
                .orElseThrow()
                .offset();
        assertThat(s.findOffsetByTime(t10).join()).contains(expected);
        assertThat(s.findOffsetByTime(0).join()).contains(0L);
        assertThat(s.findOffsetByTime(results.get(19).timestamp() + 60_000).join())
                .isEmpty();
    }

    @Test
    void closingFlushesWhatIsPending() {
        Lakestream log = Lakestream.open(
                stores.objects(),
                stores.metadata(),
                own(LakestreamConfig.DEFAULT.withWriter(new WalWriterConfig(
                        1 << 20, Duration.ofMinutes(10), 4L << 20, WalWriterConfig.WhenFull.WAIT))));
        StreamLog s = newStream(log, "close");
        AtomicInteger done = new AtomicInteger();
        List<CompletableFuture<AppendResult>> fs = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            fs.add(s.append(1, bytes("c" + i)).whenComplete((r, e) -> done.incrementAndGet()));
        }
        assertThat(done.get()).isZero();
        log.close();
        assertThat(fs).allSatisfy(f -> assertThat(f).isCompleted());
        Lakestream reopened = log(FAST);
        assertThat(readAll(reopened.stream(s.id()), 0)).hasSize(10);
    }

    @Test
    void garbageCollectionDeletesOnlyWhatNoRecordReferences() throws Exception {
        // The deadline policy, so that the two streams' appends share their objects.
        Lakestream log = log(FAST.withWriter(FAST.writer().withFlushPolicy(WalWriterConfig.FlushPolicy.DEADLINE)));
        StreamLog a = newStream(log, "gc-a");
        StreamLog b = newStream(log, "gc-b");
        CompletableFuture.allOf(a.append(1, bytes("a0")), b.append(1, bytes("b0")))
                .join();
        // Usually one object holds a0 and b0; a flush between the two appends may split them.
        Set<String> first = new HashSet<>(List.of(locationOf(a, 0), locationOf(b, 0)));
        // Object names have one-second resolution: the next objects must be named in a later second.
        awaitClockPast(first.stream()
                        .mapToLong(k -> dev.lakestream.core.wal.WalObjectKeys.writtenAt(k)
                                .toEpochMilli())
                        .max()
                        .orElseThrow()
                + 999);
        CompletableFuture.allOf(a.append(1, bytes("a1")), b.append(1, bytes("b1")))
                .join();
        Set<String> second = new HashSet<>(List.of(locationOf(a, 1), locationOf(b, 1)));
        Set<String> both = new HashSet<>(first);
        both.addAll(second);
        assertThat(both).hasSize(first.size() + second.size());
        // A writer that crashed between PUT and index commit leaves an object no record references.
        String orphan = dev.lakestream.core.wal.WalObjectKeys.newKey(java.time.Instant.now());
        ByteBuffer index = dev.lakestream.core.wal.WalObjectFormat.encodeIndex(
                Map.of(a.id(), List.of(new dev.lakestream.core.wal.WalObjectFormat.EntryLocation(0, 2, 1))));
        ByteBuffer orphanBytes = ByteBuffer.allocate(index.remaining() + 2)
                .put(index)
                .put((byte) 1)
                .put((byte) 2)
                .flip();
        long orphanSize = orphanBytes.remaining();
        stores.objects().put(orphan, orphanBytes).join();

        dev.lakestream.core.gc.WalGarbageCollector gc = new dev.lakestream.core.gc.WalGarbageCollector(
                stores.objects(),
                stores.metadata(),
                log.config().metadataRoot(),
                dev.lakestream.core.gc.GcConfig.DEFAULT.withSafetyMargin(Duration.ZERO),
                java.time.Clock.offset(java.time.Clock.systemUTC(), Duration.ofHours(2)));

        var run1 = gc.runOnce(dev.lakestream.core.gc.DeleteGate.UNLIMITED).join();
        assertThat(run1.deletedOrphans()).isEqualTo(1);
        assertThat(run1.deletedBytes()).isEqualTo(orphanSize);
        assertThat(run1.deletedBelowHorizon()).isZero();
        assertThat(listAll(stores.objects())).containsExactlyInAnyOrderElementsOf(both);

        a.trim(1).join(); // a no longer needs the first object, but b still does
        var run2 = gc.runOnce(dev.lakestream.core.gc.DeleteGate.UNLIMITED).join();
        // An object of a0 alone (split from b0's) is released by a's trim and goes now; b0's stays.
        assertThat(run2.deletedObjects()).isEqualTo(first.size() - 1);
        assertThat(readAll(log.stream(b.id()), 0))
                .extracting(LakestreamLogTest::text)
                .containsExactly("b0", "b1");

        b.trim(1).join(); // now no stream needs it
        var run3 = gc.runOnce(dev.lakestream.core.gc.DeleteGate.UNLIMITED).join();
        assertThat(run3.deletedObjects()).isEqualTo(1);
        assertThat(listAll(stores.objects())).containsExactlyInAnyOrderElementsOf(second);
        Lakestream fresh = log(LakestreamConfig.DEFAULT);
        assertThat(readAll(fresh.stream(a.id()), 1))
                .extracting(LakestreamLogTest::text)
                .containsExactly("a1");
        assertThat(readAll(fresh.stream(b.id()), 1))
                .extracting(LakestreamLogTest::text)
                .containsExactly("b1");

        // Deleting a stream without clearing its data: the collector finishes the job.
        log.catalog().delete("test", "gc-a").join();
        var run4 = gc.runOnce(dev.lakestream.core.gc.DeleteGate.UNLIMITED).join();
        assertThat(run4.deadStreamsCleared()).isEqualTo(1);
        assertThat(new OffsetIndex(stores.metadata()).first(a.id()).join()).isEmpty();
    }

    @Test
    void metricsCountTheStoresCallsInThePrometheusText() {
        Lakestream writer = log(FAST);
        StreamLog s = newStream(writer, "metrics");
        long payload = 0;
        for (int i = 0; i < 20; i++) {
            String text = "metrics-entry-" + i;
            payload += text.length();
            s.append(1, bytes(text)).join(); // one object and one index commit each
        }
        Lakestream reader = log(FAST); // another process: its cache is empty, so it GETs
        assertThat(readAll(reader.stream(s.id()), 0))
                .hasSize(20)
                .allSatisfy(e -> e.payload().release());

        var w = dev.lakestream.core.metrics.PrometheusSamples.parse(
                writer.metrics().prometheusText());
        double puts = w.get("lakestream_object_store_requests_total", "op", "put");
        assertThat(puts).isGreaterThanOrEqualTo(20);
        assertThat(w.get("lakestream_object_store_bytes_total", "op", "put")).isGreaterThan((double) payload);
        assertThat(w.get("lakestream_object_store_errors_total", "op", "put")).isZero();
        assertThat(w.get("lakestream_object_store_request_duration_seconds_count", "op", "put"))
                .isEqualTo(puts);
        assertThat(w.get("lakestream_object_store_request_duration_seconds_bucket", "op", "put", "le", "+Inf"))
                .isEqualTo(puts);
        assertThat(w.get("lakestream_object_store_request_duration_seconds_sum", "op", "put"))
                .isPositive();
        assertThat(w.get("lakestream_index_commits_total")).isEqualTo(20);
        assertThat(w.get("lakestream_index_commit_duration_seconds_count")).isEqualTo(20);
        assertThat(w.get("lakestream_index_commit_errors_total")).isZero();
        assertThat(w.get("lakestream_writer_pending_bytes")).isZero();
        assertThat(w.get("lakestream_object_store_requests_total", "op", "get")).isZero();

        var r = dev.lakestream.core.metrics.PrometheusSamples.parse(
                reader.metrics().prometheusText());
        double gets = r.get("lakestream_object_store_requests_total", "op", "get");
        assertThat(gets).isBetween(1.0, 20.0);
        assertThat(r.get("lakestream_object_store_bytes_total", "op", "get")).isGreaterThan((double) payload);
        assertThat(r.buckets("lakestream_object_store_request_duration_seconds", "op", "get"))
                .isSorted()
                .last()
                .isEqualTo(gets);
        assertThat(r.get("lakestream_cache_misses_total")).isPositive();
        assertThat(r.get("lakestream_cache_bytes")).isPositive();
        assertThat(r.get("lakestream_object_store_requests_total", "op", "put")).isZero();
        assertThat(r.get("lakestream_index_commits_total")).isZero();
    }

    /**
     * Waits until this machine's clock (which the stores use too) reads later than {@code millis}. Not Awaitility: a
     * wait of at most a millisecond, spun on the test thread, with nothing to time out on.
     */
    private static void awaitClockPast(long millis) {
        while (System.currentTimeMillis() <= millis) {
            java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
        }
    }

    private String locationOf(StreamLog s, long offset) {
        return new OffsetIndex(stores.metadata())
                .recordsFrom(s.id(), offset, 1)
                .join()
                .get(0)
                .value()
                .location();
    }

    private static List<String> listAll(ObjectStore store) {
        List<String> keys = new ArrayList<>();
        String token = null;
        do {
            var page = store.list("", token, 1000).join();
            page.objects().stream().map(ObjectInfo::key).forEach(keys::add);
            token = page.continuation();
        } while (token != null);
        return keys;
    }
}
