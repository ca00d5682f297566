package dev.lakestream.segments;

import dev.lakestream.core.log.LogEntry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.ArrayList;
import java.util.List;
import org.apache.parquet.io.api.Binary;

/**
 * The entries one read returns: from the first whose end is past the read's offset, within its budgets (the first entry
 * always whole). Each accepted entry's bytes are copied into a buffer of the allocator, which the caller then owns.
 */
final class EntryCollector {

    private final long streamId;
    private final long timestamp;
    private final long from;
    private final int maxEntries;
    private final long maxBytes;
    private final ByteBufAllocator allocator;
    private final List<LogEntry> entries = new ArrayList<>();
    private long bytes;
    private boolean full;

    EntryCollector(
            long streamId, long timestamp, long from, int maxEntries, long maxBytes, ByteBufAllocator allocator) {
        this.streamId = streamId;
        this.timestamp = timestamp;
        this.from = from;
        this.maxEntries = maxEntries;
        this.maxBytes = maxBytes;
        this.allocator = allocator;
    }

    /** Whether the read needs no more entries. */
    boolean full() {
        return full;
    }

    /** Whether the read should go on into the next row group: not full, and bytes left in its budget. */
    boolean wantsMore() {
        return !full && bytes < maxBytes;
    }

    /** The next entry of the segment: taken if it ends past the read's offset and fits the budgets. */
    void offer(long offset, int records, Binary raw) {
        if (full || offset + records <= from) {
            return;
        }
        int length = raw.length();
        if (!entries.isEmpty() && bytes + length > maxBytes) {
            full = true;
            return;
        }
        ByteBuf payload = allocator.buffer(length, length);
        try {
            payload.writeBytes(raw.toByteBuffer());
        } catch (RuntimeException e) {
            payload.release();
            throw e;
        }
        entries.add(new LogEntry(streamId, offset, records, timestamp, payload));
        bytes += length;
        full = entries.size() >= maxEntries;
    }

    /** The entries taken; the caller owns their payloads from now on. */
    List<LogEntry> entries() {
        return entries;
    }

    /** Releases what was taken: the read fails. */
    void releaseAll() {
        entries.forEach(e -> e.payload().release());
        entries.clear();
    }
}
