package dev.lakestream.segments;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.Arrays;
import org.apache.parquet.io.api.Binary;

/**
 * One row group's entries, decoded whole: their offsets and record counts, and their payloads one after another in one
 * buffer. Reference counted through that buffer: {@link DecodedGroups} holds one reference, each read in progress
 * another, so an eviction never frees bytes a read is copying.
 */
final class DecodedGroup implements EntrySink {

    final String key;
    final int group;
    private long[] offsets = new long[64];
    private int[] records = new int[64];
    /** End of each entry's payload in {@link #data}. */
    private int[] ends = new int[64];

    private int count;
    private final ByteBuf data;

    /** An empty group to decode into; {@code expectedBytes} sizes its buffer at first (it grows as needed). */
    DecodedGroup(String key, int group, ByteBufAllocator allocator, int expectedBytes) {
        this.key = key;
        this.group = group;
        this.data = allocator.buffer(Math.max(expectedBytes, 256));
    }

    @Override
    public boolean full() {
        return false;
    }

    @Override
    public void offer(long offset, int n, Binary raw) {
        if (count == offsets.length) {
            offsets = Arrays.copyOf(offsets, count * 2);
            records = Arrays.copyOf(records, count * 2);
            ends = Arrays.copyOf(ends, count * 2);
        }
        data.writeBytes(raw.toByteBuffer());
        offsets[count] = offset;
        records[count] = n;
        ends[count] = data.writerIndex();
        count++;
    }

    /** Payload bytes held. */
    int bytes() {
        return data.writerIndex();
    }

    /** Hands the entries that end past the collector's offset to it, until it is full. */
    void feed(EntryCollector collector) {
        // Entries before the offset are skipped by the collector; start near it instead of at the group's first.
        int first = Math.max(0, firstEndingAfter(collector.from()));
        for (int i = first; i < count && !collector.full(); i++) {
            int start = i == 0 ? 0 : ends[i - 1];
            collector.offer(offsets[i], records[i], data, start, ends[i] - start);
        }
    }

    private int firstEndingAfter(long offset) {
        int lo = 0;
        int hi = count;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (offsets[mid] + records[mid] <= offset) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    DecodedGroup retain() {
        data.retain();
        return this;
    }

    void release() {
        data.release();
    }
}
