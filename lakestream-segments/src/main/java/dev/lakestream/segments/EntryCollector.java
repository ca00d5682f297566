package dev.lakestream.segments;

import dev.lakestream.core.log.LogEntry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.parquet.io.api.Binary;

/**
 * The entries one read returns: from the first whose end is past the read's offset, within its budgets (the first entry
 * always whole). Each accepted entry's bytes are copied into a buffer of the allocator, which the caller then owns.
 */
final class EntryCollector implements EntrySink {

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

    /** The read's offset: entries ending at or before it are not taken. */
    long from() {
        return from;
    }

    /** Whether the read needs no more entries. */
    @Override
    public boolean full() {
        return full;
    }

    /** Whether the read should go on into the next row group: not full, and bytes left in its budget. */
    boolean wantsMore() {
        return !full && bytes < maxBytes;
    }

    /** The next entry of the segment: taken if it ends past the read's offset and fits the budgets. */
    @Override
    public void offer(long offset, int records, Binary raw) {
        if (takes(offset, records, raw.length())) {
            take(offset, records, raw.length(), payload -> payload.writeBytes(raw.toByteBuffer()));
        }
    }

    /** As {@link #offer(long, int, Binary)}, the payload being the bytes of {@code src} (not consumed). */
    void offer(long offset, int records, ByteBuffer src) {
        if (takes(offset, records, src.remaining())) {
            take(offset, records, src.remaining(), payload -> payload.writeBytes(src.duplicate()));
        }
    }

    private boolean takes(long offset, int records, int length) {
        if (full || offset + records <= from) {
            return false;
        }
        if (!entries.isEmpty() && bytes + length > maxBytes) {
            full = true;
            return false;
        }
        return true;
    }

    private void take(long offset, int records, int length, java.util.function.Consumer<ByteBuf> copy) {
        ByteBuf payload = allocator.buffer(length, length);
        try {
            copy.accept(payload);
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
