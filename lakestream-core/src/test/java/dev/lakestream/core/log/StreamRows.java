package dev.lakestream.core.log;

import dev.lakestream.core.StreamLog;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.zip.CRC32;

/**
 * A stream as tests compare it: one row per entry (offset, records, CRC of the bytes), what was appended and what
 * reads return. Shared by the compaction tests of the core and of lakestream-segments.
 */
public final class StreamRows {

    /** One entry: where it starts, how many records it holds, and a checksum of its bytes. */
    public record Row(long offset, int records, long crc) {
        public long endOffset() {
            return offset + records;
        }
    }

    private StreamRows() {}

    /** The entry's row; releases the caller's reference to its payload. */
    public static Row row(LogEntry e) {
        try {
            return new Row(e.offset(), e.records(), crc(e.payload()));
        } finally {
            e.payload().release();
        }
    }

    public static long crc(ByteBuf b) {
        CRC32 crc = new CRC32();
        crc.update(b.nioBuffer());
        return crc.getValue();
    }

    /**
     * Appends {@code entries} entries of 1 to {@code maxSize} bytes (a quarter of them 1 byte) and 1 to 3 records
     * each, waits for them, and adds their rows to {@code expected} (whose last row is where the stream ends).
     */
    public static void append(StreamLog stream, List<Row> expected, int entries, Random random, int maxSize) {
        List<CompletableFuture<?>> pending = new ArrayList<>();
        long next = expected.isEmpty() ? 0 : expected.get(expected.size() - 1).endOffset();
        for (int e = 0; e < entries; e++) {
            int size = random.nextInt(4) == 0 ? 1 : 1 + random.nextInt(maxSize);
            int records = 1 + random.nextInt(3);
            byte[] bytes = new byte[size];
            random.nextBytes(bytes);
            ByteBuf p = Unpooled.wrappedBuffer(bytes);
            expected.add(new Row(next, records, crc(p)));
            next += records;
            pending.add(stream.append(records, p));
        }
        CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).join();
    }

    /**
     * Reads the stream from {@code from} to its end with the given budgets; fails on an empty read below the end and
     * on a read of more than {@code maxEntries}.
     */
    public static List<Row> readAll(StreamLog stream, long from, int maxEntries, long maxBytes) {
        List<Row> out = new ArrayList<>();
        long end = stream.endOffset().join();
        long at = from;
        while (at < end) {
            List<LogEntry> entries = stream.read(at, maxEntries, maxBytes).join();
            if (entries.isEmpty() || entries.size() > maxEntries) {
                entries.forEach(x -> x.payload().release());
                throw new AssertionError(
                        "read at " + at + " below the end " + end + " returned " + entries.size() + " entries");
            }
            for (LogEntry e : entries) {
                out.add(row(e));
                at = e.endOffset();
            }
        }
        return out;
    }
}
