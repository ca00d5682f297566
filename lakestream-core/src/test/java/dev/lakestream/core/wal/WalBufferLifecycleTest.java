package dev.lakestream.core.wal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lakestream.core.index.IndexRecord;
import dev.lakestream.core.index.OffsetIndex;
import dev.lakestream.core.log.AppendResult;
import dev.lakestream.core.log.EntryUnreadableException;
import dev.lakestream.core.log.LogEntry;
import dev.lakestream.core.log.StreamFencedException;
import dev.lakestream.core.metadata.MetadataStore;
import dev.lakestream.core.metadata.embedded.EmbeddedMetadataStore;
import dev.lakestream.core.metadata.embedded.EmbeddedMetadataStoreConfig;
import dev.lakestream.core.objectstore.ForwardingObjectStore;
import dev.lakestream.core.objectstore.ObjectStore;
import dev.lakestream.core.objectstore.ObjectStoreUnavailableException;
import dev.lakestream.core.objectstore.fs.FileSystemObjectStore;
import dev.lakestream.core.objectstore.fs.FileSystemObjectStoreConfig;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.ResourceLeakDetector;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Who owns the payload memory, on the real embedded stores (a directory and RocksDB): the writer stores each object
 * straight from the chunks its appends were copied into (byte for byte the object the format describes), the cache
 * keeps them until it evicts them, and every chunk is released exactly once, also when the PUT fails, a stream is
 * fenced, or the object is too large to cache. The reader fetches into pooled direct buffers and hands out slices of
 * them. Netty's leak detector runs PARANOID here; the allocator counts every buffer it handed out.
 */
class WalBufferLifecycleTest {

    private static ResourceLeakDetector.Level level;

    @TempDir
    Path dir;

    private ObjectStore store;
    private MetadataStore metadata;
    private ScheduledExecutorService scheduler;
    private final TrackingAllocator allocator = new TrackingAllocator();
    private final SplittableRandom random = new SplittableRandom(13);

    @BeforeAll
    static void paranoid() {
        level = ResourceLeakDetector.getLevel();
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
    }

    @AfterAll
    static void restore() {
        ResourceLeakDetector.setLevel(level);
    }

    @BeforeEach
    void open() {
        store = new FileSystemObjectStore(FileSystemObjectStoreConfig.of(dir.resolve("objects")));
        metadata = EmbeddedMetadataStore.open(EmbeddedMetadataStoreConfig.of(dir.resolve("metadata")));
        scheduler = Executors.newSingleThreadScheduledExecutor();
    }

    @AfterEach
    void close() {
        scheduler.shutdownNow();
        metadata.close();
        store.close();
    }

    private WalWriter writer(ObjectStore objects, ObjectCache cache, CommitGuard guard) {
        // Batches are sealed by flushNow only (a deadline far away), so a loaded machine cannot split them.
        WalWriterConfig config = new WalWriterConfig(
                        8L << 20, java.time.Duration.ofMinutes(1), 256L << 20, WalWriterConfig.WhenFull.WAIT)
                .withFlushPolicy(WalWriterConfig.FlushPolicy.DEADLINE);
        return new WalWriter(
                objects, metadata, config, cache, guard, CommitListener.NONE, scheduler, Clock.systemUTC(), allocator);
    }

    private byte[] bytes(int n) {
        byte[] b = new byte[n];
        random.nextBytes(b);
        return b;
    }

    /** Appends, interleaving the streams, one batch; returns each stream's payloads in append order. */
    private Map<Long, List<byte[]>> appendOneBatch(
            WalWriter writer, List<CompletableFuture<AppendResult>> results, int[] sizes, long... streams) {
        Map<Long, List<byte[]>> written = new LinkedHashMap<>();
        for (int i = 0; i < sizes.length; i++) {
            long stream = streams[i % streams.length];
            byte[] b = bytes(sizes[i]);
            ByteBuf payload = Unpooled.directBuffer(b.length).writeBytes(b);
            results.add(writer.append(stream, 1, payload));
            // The writer copied it: the caller may release at once.
            payload.release();
            written.computeIfAbsent(stream, k -> new ArrayList<>()).add(b);
        }
        writer.flushNow();
        return written;
    }

    private String objectOf(long stream) {
        List<IndexRecord> records =
                new OffsetIndex(metadata).recordsFrom(stream, 0, 10).join();
        assertThat(records).hasSize(1);
        return records.get(0).value().location();
    }

    @Test
    void anObjectIsStoredFromTheAppendChunksByteForByteAndItsMemoryIsReleasedWhenTheCacheEvictsIt() {
        ObjectCache cache = new ObjectCache(64L << 20);
        WalWriter writer = writer(store, cache, CommitGuard.NONE);
        List<CompletableFuture<AppendResult>> results = new ArrayList<>();
        int[] sizes = {10, 2000, 1, 700 << 10, 5000, 0, 30_000, 64, 64, 64};
        Map<Long, List<byte[]>> written = appendOneBatch(writer, results, sizes, 7, 3, 9);
        results.forEach(CompletableFuture::join);

        // The layout of the format: the index, then each stream's entries together, streams in first-append order.
        Map<Long, List<WalObjectFormat.EntryLocation>> locations = new LinkedHashMap<>();
        ByteBuffer data = ByteBuffer.allocate(java.util.Arrays.stream(sizes).sum());
        long offset = 0;
        for (Map.Entry<Long, List<byte[]>> s : written.entrySet()) {
            List<WalObjectFormat.EntryLocation> entries = new ArrayList<>();
            for (byte[] b : s.getValue()) {
                entries.add(new WalObjectFormat.EntryLocation(offset, b.length, 1));
                data.put(b);
                offset += b.length;
            }
            locations.put(s.getKey(), entries);
        }
        ByteBuffer index = WalObjectFormat.encodeIndex(locations);
        ByteBuffer expected = ByteBuffer.allocate(index.remaining() + data.capacity())
                .put(index)
                .put(data.flip())
                .flip();
        String key = objectOf(7);
        assertThat(objectOf(3)).isEqualTo(key);
        assertThat(store.get(key).join()).isEqualTo(expected);

        // The cache holds the chunks (charged what they occupy), nothing else does.
        assertThat(cache.contains(key)).isTrue();
        assertThat(cache.bytes()).isGreaterThanOrEqualTo(expected.remaining());
        assertThat(allocator.live()).isNotEmpty();
        ByteBuf cached = cache.get(key);
        assertThat(cached.nioBuffer()).isEqualTo(expected);
        cached.release();
        writer.close();
        cache.clear();
        assertThat(allocator.live()).isEmpty();
    }

    @Test
    void anObjectLargerThanTheCacheIsReleasedAsSoonAsItIsStored() {
        ObjectCache cache = new ObjectCache(1024);
        WalWriter writer = writer(store, cache, CommitGuard.NONE);
        List<CompletableFuture<AppendResult>> results = new ArrayList<>();
        appendOneBatch(writer, results, new int[] {3000, 4000}, 1);
        results.forEach(CompletableFuture::join);
        writer.close();
        assertThat(cache.bytes()).isZero();
        assertThat(allocator.handedOut()).isPositive();
        assertThat(allocator.live()).isEmpty();
    }

    @Test
    void aFailedPutFailsItsAppendsAndReleasesEveryChunk() {
        ObjectStore failing = new ForwardingObjectStore("failing", store) {
            @Override
            public CompletableFuture<Void> put(String key, ByteBuffer data) {
                return CompletableFuture.failedFuture(new ObjectStoreUnavailableException("injected: PUT of " + key));
            }
        };
        ObjectCache cache = new ObjectCache(64L << 20);
        WalWriter writer = writer(failing, cache, CommitGuard.NONE);
        List<CompletableFuture<AppendResult>> results = new ArrayList<>();
        appendOneBatch(writer, results, new int[] {100, 200, 300_000}, 1, 2);
        for (CompletableFuture<AppendResult> r : results) {
            assertThatThrownBy(r::join).hasCauseInstanceOf(ObjectStoreUnavailableException.class);
        }
        writer.close();
        assertThat(cache.bytes()).isZero();
        assertThat(writer.pendingBytes()).isZero();
        assertThat(allocator.live()).isEmpty();
    }

    @Test
    void aFencedStreamFailsOnlyItsAppendsAndTheObjectIsReleasedWithTheCache() {
        ObjectCache cache = new ObjectCache(64L << 20);
        CommitGuard fenceTwo = stream -> stream == 2
                ? CompletableFuture.<CommitGuard.Ticket>failedFuture(
                        new StreamFencedException("stream 2 is fenced (test)"))
                : CompletableFuture.completedFuture(CommitGuard.Ticket.UNFENCED);
        WalWriter writer = writer(store, cache, fenceTwo);
        List<CompletableFuture<AppendResult>> results = new ArrayList<>();
        appendOneBatch(writer, results, new int[] {100, 200, 300, 400}, 1, 2);
        assertThat(results.get(0).join().offset()).isZero();
        assertThatThrownBy(results.get(1)::join).hasCauseInstanceOf(StreamFencedException.class);
        assertThat(results.get(2).join().offset()).isEqualTo(1);
        assertThatThrownBy(results.get(3)::join).hasCauseInstanceOf(StreamFencedException.class);
        writer.close();
        assertThat(cache.bytes()).isPositive();
        cache.clear();
        assertThat(allocator.live()).isEmpty();
    }

    @Test
    void readEntriesAreSlicesOfPooledDirectBuffersReleasedWithTheEntriesWholeAndRanged() throws Exception {
        ObjectCache writerCache = new ObjectCache(0);
        WalWriter writer = writer(store, writerCache, CommitGuard.NONE);
        List<CompletableFuture<AppendResult>> results = new ArrayList<>();
        int[] sizes = new int[40];
        java.util.Arrays.fill(sizes, 1000);
        Map<Long, List<byte[]>> written = appendOneBatch(writer, results, sizes, 1, 2);
        results.forEach(CompletableFuture::join);
        writer.close();
        assertThat(allocator.live()).isEmpty();

        // Whole objects (cached) and ranged reads (objects above 8 KiB), with and without read-ahead.
        for (ReaderConfig config : List.of(
                new ReaderConfig(1L << 20, 1L << 20, 4, 0),
                new ReaderConfig(1L << 20, 8 << 10, 4, 0),
                new ReaderConfig(1L << 20, 8 << 10, 4, 4 << 10))) {
            TrackingAllocator reads = new TrackingAllocator();
            ObjectCache cache = new ObjectCache(config.cacheBytes());
            WalReader reader = new WalReader(store, new OffsetIndex(metadata), cache, config, reads);
            for (long stream : new long[] {1, 2}) {
                long next = 0;
                while (next < 20) {
                    List<LogEntry> entries =
                            reader.read(stream, next, 3, 1 << 20).join();
                    assertThat(entries).isNotEmpty();
                    for (LogEntry e : entries) {
                        assertThat(e.payload().isDirect()).isTrue();
                        byte[] got = new byte[e.payload().readableBytes()];
                        e.payload().getBytes(e.payload().readerIndex(), got);
                        assertThat(got).isEqualTo(written.get(stream).get((int) e.offset()));
                        e.payload().release();
                        next = e.endOffset();
                    }
                }
            }
            assertThat(reads.handedOut())
                    .as("fetched into the reader's allocator (%s)", config)
                    .isPositive();
            reader.close();
            cache.clear();
            reads.awaitAllReleased();
        }
    }

    @Test
    void aReadThatFailsPartWayReleasesWhatItHadFetched() {
        List<CompletableFuture<AppendResult>> results = new ArrayList<>();
        ObjectCache writerCache = new ObjectCache(0);
        WalWriter writer = writer(store, writerCache, CommitGuard.NONE);
        appendOneBatch(writer, results, new int[] {500, 500}, 1);
        results.forEach(CompletableFuture::join);
        appendOneBatch(writer, results, new int[] {500, 500}, 1);
        results.forEach(CompletableFuture::join);
        writer.close();
        List<IndexRecord> records =
                new OffsetIndex(metadata).recordsFrom(1, 0, 10).join();
        assertThat(records).hasSize(2);
        store.delete(List.of(records.get(1).value().location())).join();

        ObjectCache cache = new ObjectCache(0);
        WalReader reader =
                new WalReader(store, new OffsetIndex(metadata), cache, new ReaderConfig(0, 1L << 20, 0, 0), allocator);
        assertThatThrownBy(() -> reader.read(1, 0, 10, 1 << 20).join())
                .hasCauseInstanceOf(EntryUnreadableException.class);
        reader.close();
        assertThat(allocator.live()).isEmpty();
    }

    @Test
    void entriesOfAReadCancelledWhileItsGetWasInFlightAreReleasedWhenTheyArrive() throws Exception {
        List<CompletableFuture<AppendResult>> results = new ArrayList<>();
        WalWriter writer = writer(store, new ObjectCache(0), CommitGuard.NONE);
        appendOneBatch(writer, results, new int[] {500, 500, 500}, 1);
        results.forEach(CompletableFuture::join);
        writer.close();

        CompletableFuture<Void> gate = new CompletableFuture<>();
        ObjectStore held = new ForwardingObjectStore("held", store) {
            @Override
            public CompletableFuture<ByteBuf> get(String key, io.netty.buffer.ByteBufAllocator allocator) {
                return gate.thenCompose(v -> store.get(key, allocator));
            }
        };
        WalReader reader = new WalReader(
                held, new OffsetIndex(metadata), new ObjectCache(0), new ReaderConfig(0, 1L << 20, 0, 0), allocator);
        CompletableFuture<List<LogEntry>> read = reader.read(1, 0, 10, 1 << 20);
        assertThat(read.cancel(false)).isTrue();
        gate.complete(null);
        allocator.awaitHandedOut();
        assertThat(allocator.handedOut())
                .as("the GET did fetch into the allocator")
                .isPositive();
        allocator.awaitAllReleased();
        reader.close();
    }
}
