package dev.lakestream.core.wal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lakestream.core.objectstore.ObjectStore;
import dev.lakestream.core.objectstore.fs.FileSystemObjectStore;
import dev.lakestream.core.objectstore.fs.FileSystemObjectStoreConfig;
import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The read-ahead ranges over a real (local filesystem) object store, with a clock the test moves. */
class RangeCacheTest {

    private static final String KEY = "2026/11/30/00/00/00/object";
    private static final int SIZE = 64 << 10;

    @TempDir
    Path dir;

    private ObjectStore store;
    private final AtomicLong now = new AtomicLong();

    @BeforeEach
    void open() {
        store = new FileSystemObjectStore(FileSystemObjectStoreConfig.of(dir));
        byte[] bytes = new byte[SIZE];
        for (int i = 0; i < SIZE; i++) {
            bytes[i] = (byte) (i * 31);
        }
        store.put(KEY, ByteBuffer.wrap(bytes)).join();
    }

    @AfterEach
    void close() {
        store.close();
    }

    private final TrackingAllocator allocator = new TrackingAllocator();

    private RangeCache cache(long maxBytes) {
        return new RangeCache(store, maxBytes, allocator, now::get);
    }

    /** Checks the bytes and releases the caller's reference. */
    private static void assertBytesOf(CompletableFuture<ByteBuf> f, long start, int length) throws Exception {
        ByteBuf b = f.get(10, TimeUnit.SECONDS);
        try {
            assertThat(b.readableBytes()).isEqualTo(length);
            for (int i = 0; i < length; i++) {
                assertThat(b.getByte(b.readerIndex() + i))
                        .as("byte %d", start + i)
                        .isEqualTo((byte) ((start + i) * 31));
            }
        } finally {
            b.release();
        }
    }

    /** Every range fetched is released once it is dropped and its readers released their slices. */
    private void assertAllReleasedAfterClear(RangeCache c) throws Exception {
        c.clear();
        allocator.awaitAllReleased();
        assertThat(allocator.live()).isEmpty();
    }

    @Test
    void fetchesAWindowInPartsAndServesReadsWithinAndAcrossThem() throws Exception {
        RangeCache c = cache(1 << 20);
        c.readAhead(KEY, 1000, SIZE, 16 << 10, 4 << 10);
        assertThat(c.fetches()).isEqualTo(4);
        assertThat(c.bytes()).isEqualTo(16 << 10);
        // Nothing new while the window is covered; a reader that moved on gets one more whole part, not a sliver.
        c.readAhead(KEY, 1000, SIZE, 16 << 10, 4 << 10);
        assertThat(c.fetches()).isEqualTo(4);
        c.readAhead(KEY, 1200, SIZE, 16 << 10, 4 << 10);
        assertThat(c.fetches()).isEqualTo(5);
        assertThat(c.bytes()).isEqualTo(20 << 10);
        // Inside one part, and across the first and second.
        assertBytesOf(c.find(KEY, 1100, 100).orElseThrow(), 1100, 100);
        assertBytesOf(c.find(KEY, 5000, 200).orElseThrow(), 5000, 200);
        // Not held: before the window, past it.
        assertThat(c.find(KEY, 500, 100)).isEmpty();
        assertThat(c.find(KEY, 21_480, 1000)).isEmpty();
        assertAllReleasedAfterClear(c);
    }

    @Test
    void aRangeReadToItsEndIsDroppedAndTheWindowMovesOn() throws Exception {
        RangeCache c = cache(1 << 20);
        c.readAhead(KEY, 0, SIZE, 8 << 10, 4 << 10);
        assertBytesOf(c.find(KEY, 0, 4 << 10).orElseThrow(), 0, 4 << 10);
        assertThat(c.bytes()).isEqualTo(4 << 10);
        assertThat(c.find(KEY, 0, 10)).isEmpty();
        // The reader is at 4 KiB: the window [4 KiB, 12 KiB) needs one more part.
        c.readAhead(KEY, 4 << 10, SIZE, 8 << 10, 4 << 10);
        assertThat(c.fetches()).isEqualTo(3);
        // The last part of the object is shorter.
        c.readAhead(KEY, SIZE - 1000, SIZE, 8 << 10, 4 << 10);
        assertBytesOf(c.find(KEY, SIZE - 1000, 1000).orElseThrow(), SIZE - 1000, 1000);
        assertAllReleasedAfterClear(c);
    }

    @Test
    void aRangeDroppedWhileAReaderWaitsForItIsReleasedOnlyAfterTheReaderTookItsSlice() throws Exception {
        RangeCache c = cache(1 << 20);
        c.readAhead(KEY, 0, SIZE, 4 << 10, 4 << 10);
        // Reading the part to its end drops it at once, likely before its GET has even completed.
        CompletableFuture<ByteBuf> whole = c.find(KEY, 0, 4 << 10).orElseThrow();
        assertThat(c.bytes()).isZero();
        assertBytesOf(whole, 0, 4 << 10);
        assertThat(allocator.live()).isEmpty();
    }

    @Test
    void aFullBudgetStopsReadAheadInsteadOfEvictingWhatReadersHaveYetToReach() throws Exception {
        RangeCache c = cache(8 << 10);
        c.readAhead(KEY, 0, SIZE, 16 << 10, 4 << 10);
        assertThat(c.fetches()).as("two parts fit the budget").isEqualTo(2);
        // Another reader elsewhere gets nothing while those are fresh...
        c.readAhead(KEY, 32 << 10, SIZE, 8 << 10, 4 << 10);
        assertThat(c.fetches()).isEqualTo(2);
        assertBytesOf(c.find(KEY, 0, 100).orElseThrow(), 0, 100);
        // ... and takes their place once nobody touched them for a while (their reader went away).
        now.addAndGet(RangeCache.STALE_NANOS + 1);
        c.readAhead(KEY, 32 << 10, SIZE, 8 << 10, 4 << 10);
        assertThat(c.fetches()).isEqualTo(4);
        assertThat(c.bytes()).isEqualTo(8 << 10);
        assertThat(c.find(KEY, 0, 100)).isEmpty();
        assertAllReleasedAfterClear(c);
    }

    @Test
    void aRangeWhoseGetFailsIsDropped() throws Exception {
        RangeCache c = cache(1 << 20);
        // An object that does not exist: both parts' GETs fail.
        String missing = "2026/11/30/00/00/00/missing";
        c.readAhead(missing, 0, 8 << 10, 8 << 10, 4 << 10);
        // A range is dropped before its future fails: once a reader sees the failure (or when the range is gone
        // already), nothing of it is held.
        for (long at : new long[] {0, 4 << 10}) {
            Optional<CompletableFuture<ByteBuf>> f = c.find(missing, at, 100);
            if (f.isPresent()) {
                assertThat(f.get()).failsWithin(10, TimeUnit.SECONDS);
            }
        }
        assertThat(c.bytes()).isZero();
        assertThat(c.find(missing, 0, 100)).isEmpty();
        assertThat(allocator.live()).isEmpty();
    }
}
