package dev.lakestream.core.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.lakestream.core.Lakestream;
import dev.lakestream.core.LakestreamConfig;
import dev.lakestream.core.StreamLog;
import dev.lakestream.core.catalog.StreamInfo;
import dev.lakestream.core.wal.ReaderConfig;
import dev.lakestream.core.wal.WalWriterConfig;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.zip.CRC32;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Every read of a stream returns a contiguous run of its entries, starting with the one that holds the offset asked
 * for, whatever the budget: the concatenation of reads from offset 0 is the stream, entry for entry. Entries range
 * from 1 byte to 8 MiB, mixed, in WAL objects of one stream and of several, fetched whole (small objects) and by
 * range with read-ahead (large ones), through a cold reader and then the same reader warm.
 *
 * <p>Written once per class (the streams are large), read by every budget. The subclasses run it on the embedded pair
 * and on S3Proxy + the real Oxia server.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class StreamReadCompletenessTest {

    /** Opens the pair of stores the class writes to and reads from. */
    protected abstract LakestreamLogTest.Stores openStores() throws Exception;

    /** Budgets from 1 byte to 64 MiB, as a dispatcher, the materializer, the dump tool and a lookup ask. */
    static final long[] BYTE_BUDGETS = {1, 100, 4 << 10, 64 << 10, 500_000, 1 << 20, 3 << 20, 16 << 20, 64L << 20};

    static final int[] ENTRY_BUDGETS = {1, 3, 10, 100, 1000};

    private static final long SEED = 20261203L;

    /** What a reader must find: one row per entry. */
    record Expected(long offset, int records, int size, long crc) {}

    private LakestreamLogTest.Stores stores;
    private Lakestream writer;
    private final Map<String, List<Expected>> streams = new java.util.LinkedHashMap<>();
    private final Map<String, Long> ids = new java.util.HashMap<>();

    /** The writer's objects: flushed at 8 MiB, so a group of appends of several streams shares objects. */
    private static final LakestreamConfig WRITE = LakestreamConfig.DEFAULT
            .withMetadataRoot("/read-completeness")
            .withWriter(new WalWriterConfig(8L << 20, Duration.ofMillis(5), 256L << 20, WalWriterConfig.WhenFull.WAIT)
                    .withMaxPutsPerSecond(1000));

    /** Payload of entry {@code i} of stream {@code s}: a pattern that differs per entry, so a wrong slice shows. */
    static ByteBuf payload(int s, int i, int size) {
        byte[] b = new byte[size];
        long x = SEED ^ (s * 1_000_003L) ^ (i * 7_919L);
        for (int k = 0; k < size; k++) {
            x = x * 6364136223846793005L + 1442695040888963407L;
            b[k] = (byte) (x >>> 56);
        }
        return Unpooled.wrappedBuffer(b);
    }

    static long crc(ByteBuf b) {
        CRC32 crc = new CRC32();
        crc.update(b.nioBuffer());
        return crc.getValue();
    }

    /** How big entry {@code i} of a stream of the given kind is: 1 byte to 8 MiB, mixed. */
    static int sizeOf(String kind, Random random, int i) {
        return switch (kind) {
            case "small" -> 1 + random.nextInt(2048);
            case "large" -> i % 17 == 16 ? (8 << 20) : 300_000 + random.nextInt(1_200_000);
            default ->
                switch (random.nextInt(10)) {
                    case 0 -> 1;
                    case 1, 2 -> 1 + random.nextInt(200);
                    case 3, 4, 5 -> 1 + random.nextInt(64 << 10);
                    case 6, 7 -> 300_000 + random.nextInt(800_000);
                    case 8 -> 1_000_000 + random.nextInt(1_200_000);
                    default -> i % 3 == 0 ? (8 << 20) : 2_000_000 + random.nextInt(1_000_000);
                };
        };
    }

    @BeforeAll
    void write() throws Exception {
        stores = openStores();
        writer = Lakestream.open(stores.objects(), stores.metadata(), WRITE);
        // "small": a busy stream of small entries, sharing objects with the others; "large": large batches only
        // (objects above the whole-object limit, read by range); "mixed": 1 byte to 8 MiB in any order.
        String[] kinds = {"small", "large", "mixed"};
        int[] entriesPerGroup = {40, 2, 5};
        List<StreamLog> logs = new ArrayList<>();
        for (String kind : kinds) {
            StreamInfo info = writer.catalog().create("test", kind, Map.of()).join();
            logs.add(writer.stream(info));
            ids.put(kind, info.id());
            streams.put(kind, new ArrayList<>());
        }
        Random random = new Random(SEED);
        long[] next = new long[kinds.length];
        for (int group = 0; group < 12; group++) {
            List<CompletableFuture<AppendResult>> pending = new ArrayList<>();
            for (int s = 0; s < kinds.length; s++) {
                // Every fourth group leaves a stream out, so some objects hold one stream only.
                if ((group + s) % 4 == 3) {
                    continue;
                }
                for (int e = 0; e < entriesPerGroup[s]; e++) {
                    List<Expected> rows = streams.get(kinds[s]);
                    int size = sizeOf(kinds[s], random, rows.size());
                    int records = 1 + random.nextInt(3);
                    ByteBuf p = payload(s, rows.size(), size);
                    rows.add(new Expected(next[s], records, size, crc(p)));
                    next[s] += records;
                    pending.add(logs.get(s).append(records, p));
                }
            }
            CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).join();
        }
    }

    @AfterAll
    void closeAll() {
        writer.close();
        stores.close();
    }

    /** A reader of its own (a cold cache), as another broker or the dump tool has. */
    private Lakestream reader(ReaderConfig config) {
        return Lakestream.open(stores.objects(), stores.metadata(), WRITE.withReader(config));
    }

    /** The byte budgets of the full sweep; a subclass on slower stores may sweep fewer. */
    protected long[] byteBudgets() {
        return BYTE_BUDGETS;
    }

    protected int[] entryBudgets() {
        return ENTRY_BUDGETS;
    }

    @Test
    void everyBudgetReadsEveryEntryFromTheStart() {
        for (long maxBytes : byteBudgets()) {
            for (int maxEntries : entryBudgets()) {
                try (Lakestream reader = reader(ReaderConfig.DEFAULT)) {
                    for (String pass : List.of("cold", "warm")) {
                        for (String name : streams.keySet()) {
                            readAll(
                                    reader,
                                    name,
                                    maxEntries,
                                    maxBytes,
                                    name + ", " + pass + ", maxEntries " + maxEntries + ", maxBytes " + maxBytes);
                        }
                    }
                }
            }
        }
    }

    @Test
    void readsAreCompleteWithoutReadAheadPrefetchOrCache() {
        ReaderConfig bare = new ReaderConfig(0, 1L << 20, 0, 0);
        ReaderConfig allWhole = new ReaderConfig(64L << 20, 64L << 20, 4, 0);
        ReaderConfig allRanged = new ReaderConfig(64L << 20, 0, 4, 1L << 20);
        for (ReaderConfig config : List.of(bare, allWhole, allRanged)) {
            for (long maxBytes : new long[] {1, 500_000, 16 << 20}) {
                try (Lakestream reader = reader(config)) {
                    for (String name : streams.keySet()) {
                        readAll(reader, name, 100, maxBytes, name + ", " + config + ", maxBytes " + maxBytes);
                    }
                }
            }
        }
    }

    /**
     * Random reads from random offsets with random budgets, some continuing where the last ended (sequential: prefetch
     * and read-ahead), some jumping back (a redelivery) or ahead (a seek). Seeded; the seed is in every failure.
     */
    @Test
    void randomReadsReturnTheEntriesAtTheirOffset() {
        long seed = Long.getLong("lakestream.test.seed", System.nanoTime());
        Random random = new Random(seed);
        try (Lakestream reader = reader(ReaderConfig.DEFAULT)) {
            for (String name : streams.keySet()) {
                List<Expected> rows = streams.get(name);
                long end = rows.get(rows.size() - 1).offset()
                        + rows.get(rows.size() - 1).records();
                long from = 0;
                for (int n = 0; n < 300; n++) {
                    int choice = random.nextInt(10);
                    if (choice == 0) {
                        from = (long) (random.nextDouble() * end);
                    } else if (choice == 1) {
                        from = Math.max(0, from - random.nextInt(50));
                    }
                    int maxEntries = 1 + random.nextInt(random.nextBoolean() ? 5 : 500);
                    long maxBytes = 1L << random.nextInt(27);
                    String where = "seed " + seed + " (-Dlakestream.test.seed=" + seed + "), " + name + ", read " + n
                            + " from " + from + ", maxEntries " + maxEntries + ", maxBytes " + maxBytes;
                    List<LogEntry> got = reader.stream(ids.get(name))
                            .read(from, maxEntries, maxBytes)
                            .join();
                    int at = indexHolding(rows, from);
                    try {
                        assertThat(got).as(where + ": entries").isNotEmpty().hasSizeLessThanOrEqualTo(maxEntries);
                        check(rows, at, got, where);
                        from = got.get(got.size() - 1).endOffset();
                    } finally {
                        got.forEach(e -> e.payload().release());
                    }
                    if (from >= end) {
                        from = 0;
                    }
                }
            }
        }
    }

    /** Reads the stream from 0 in reads of the budget, each going on from where the last ended, and checks it whole. */
    private void readAll(Lakestream reader, String name, int maxEntries, long maxBytes, String where) {
        List<Expected> rows = streams.get(name);
        StreamLog stream = reader.stream(ids.get(name));
        long next = 0;
        int at = 0;
        int reads = 0;
        while (at < rows.size()) {
            List<LogEntry> got = stream.read(next, maxEntries, maxBytes).join();
            String read = where + ": read " + reads++ + " from offset " + next;
            try {
                if (got.isEmpty()) {
                    fail(read + " returned nothing, " + (rows.size() - at) + " entries before the end");
                }
                assertThat(got.size()).as(read + ": entries").isLessThanOrEqualTo(maxEntries);
                check(rows, at, got, read);
                at += got.size();
                next = got.get(got.size() - 1).endOffset();
            } finally {
                got.forEach(e -> e.payload().release());
            }
        }
        List<LogEntry> after = stream.read(next, maxEntries, maxBytes).join();
        assertThat(after).as(where + ": a read past the end").isEmpty();
    }

    /** The entries read are rows {@code at, at + 1, ...}, each with its offset, records and bytes. */
    private static void check(List<Expected> rows, int at, List<LogEntry> got, String where) {
        for (int k = 0; k < got.size(); k++) {
            LogEntry e = got.get(k);
            if (at + k >= rows.size()) {
                fail(where + ": entry " + k + " at offset " + e.offset() + " is past the stream's end");
            }
            Expected want = rows.get(at + k);
            if (e.offset() != want.offset()) {
                fail(where + ": entry " + k + " of the read is at offset " + e.offset() + ", expected " + want.offset()
                        + " (" + (e.offset() > want.offset() ? "entries skipped" : "out of order") + ")");
            }
            assertThat(e.records())
                    .as(where + ": records of offset " + e.offset())
                    .isEqualTo(want.records());
            assertThat(e.payload().readableBytes())
                    .as(where + ": size of offset " + e.offset())
                    .isEqualTo(want.size());
            assertThat(crc(e.payload()))
                    .as(where + ": bytes of offset " + e.offset())
                    .isEqualTo(want.crc());
        }
    }

    private static int indexHolding(List<Expected> rows, long offset) {
        int lo = 0;
        int hi = rows.size() - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (rows.get(mid).offset() <= offset) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }
}
