package dev.lakestream.segments;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.parquet.io.api.Binary;

/**
 * One row group's entries, decoded whole: their offsets, record counts and payloads. A payload is a view of the page
 * Parquet decompressed it into (each decompressed page is an array of its own, never reused), so decoding copies no
 * entry a second time (entries of uncompressed pages, views of a whole fetched span, are copied); a read copies what it
 * takes into its own buffers. Reference counted: {@link DecodedGroups} holds
 * one reference, each read in progress another; the last release drops the views, so an evicted group's pages are
 * garbage as soon as no read uses them.
 */
final class DecodedGroup implements EntrySink {

    final String key;
    final int group;
    private long[] offsets = new long[64];
    private int[] records = new int[64];
    private ByteBuffer[] payloads = new ByteBuffer[64];

    private int count;
    private long bytes;
    private final AtomicInteger refs = new AtomicInteger(1);

    /** Whether payloads are kept as views of their pages (else copied: the pages are views of larger buffers). */
    private final boolean views;

    /** An empty group to decode into, with one reference (the caller's). */
    DecodedGroup(String key, int group, boolean views) {
        this.key = key;
        this.group = group;
        this.views = views;
    }

    @Override
    public boolean full() {
        return false;
    }

    /** Keeps {@code raw}: a view (Parquet's constant binaries of a decompressed page stay valid), or a copy. */
    @Override
    public void offer(long offset, int n, Binary raw) {
        if (count == offsets.length) {
            offsets = Arrays.copyOf(offsets, count * 2);
            records = Arrays.copyOf(records, count * 2);
            payloads = Arrays.copyOf(payloads, count * 2);
        }
        ByteBuffer view = views ? raw.toByteBuffer() : ByteBuffer.wrap(raw.getBytes());
        offsets[count] = offset;
        records[count] = n;
        payloads[count] = view;
        bytes += view.remaining();
        count++;
    }

    /** Payload bytes held. */
    long bytes() {
        return bytes;
    }

    /** Hands the entries that end past the collector's offset to it, until it is full. */
    void feed(EntryCollector collector) {
        // Entries before the offset are skipped by the collector; start near it instead of at the group's first.
        int first = Math.max(0, firstEndingAfter(collector.from()));
        for (int i = first; i < count && !collector.full(); i++) {
            collector.offer(offsets[i], records[i], payloads[i]);
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
        if (refs.getAndIncrement() < 1) {
            throw new IllegalStateException("row group " + group + " of " + key + " was already released");
        }
        return this;
    }

    void release() {
        if (refs.decrementAndGet() == 0) {
            payloads = new ByteBuffer[0];
            count = 0;
        }
    }
}
