package dev.lakestream.core.wal;

import dev.lakestream.core.objectstore.ObjectStore;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Byte ranges of large WAL objects fetched ahead of sequential readers, so that a reader going through a stream's
 * part of a large object in small reads (a broker's dispatcher reads about 100 entries at a time) waits for one GET
 * per part of its read-ahead window instead of one per read, and the store is asked for a few large ranges instead
 * of many small ones.
 *
 * <p>The ranges of one object never overlap: {@link #readAhead} fetches only what is not covered yet. A range read to
 * its end is dropped at once (its reader has moved on). Read-ahead is best effort within the byte budget: a part that
 * does not fit is not fetched, rather than pushing out parts fetched for readers that have yet to reach them; only
 * ranges nobody touched for {@link #STALE_NANOS} (their reader went away) make room. A range whose GET fails or comes
 * back short is dropped; a reader that was waiting on it fetches its bytes itself (see {@link #find}). Thread-safe.
 *
 * <p>Ranges are fetched into pooled direct buffers (from the allocator it is given); a range holds one reference, and a
 * reader gets retained slices of it. A dropped range's reference is released once no {@link #find} that reached it
 * is still waiting to take its slice ({@code users}), so a read never sees memory given back.
 */
final class RangeCache {

    /** A read-ahead window is fetched in parts of a quarter of it. */
    static final int PARTS = 4;
    /** A range nobody read or fetched for this long no longer holds its place in the budget. */
    static final long STALE_NANOS = TimeUnit.SECONDS.toNanos(30);

    private static final TreeMap<Long, Range> EMPTY = new TreeMap<>();

    private final ObjectStore objects;
    private final ByteBufAllocator allocator;
    private final long maxBytes;
    private final LongSupplier nanoClock;

    private final Map<String, TreeMap<Long, Range>> byObject = new HashMap<>();
    /** Every range, least recently touched first. */
    private final LinkedHashMap<Range, Boolean> byUse = new LinkedHashMap<>(16, 0.75f, true);

    private long bytes;
    private long fetches;

    RangeCache(ObjectStore objects, long maxBytes, ByteBufAllocator allocator) {
        this(objects, maxBytes, allocator, System::nanoTime);
    }

    RangeCache(ObjectStore objects, long maxBytes, ByteBufAllocator allocator, LongSupplier nanoClock) {
        this.allocator = allocator;
        this.objects = objects;
        this.maxBytes = maxBytes;
        this.nanoClock = nanoClock;
    }

    /** Bytes {@code [start, end)} of one object: fetched, or still being fetched. */
    private static final class Range {
        final String key;
        final long start;
        final long end;
        final CompletableFuture<ByteBuf> data = new CompletableFuture<>();
        long touched;
        /** Finds that reached this range and have not yet taken their slice of it. Guarded by the cache. */
        int users;
        /** Out of the cache: its buffer is released once it has no users. Guarded by the cache. */
        boolean dropped;
        /** Its buffer's reference has been released. Guarded by the cache. */
        boolean released;

        Range(String key, long start, long end, long now) {
            this.key = key;
            this.start = start;
            this.end = end;
            this.touched = now;
        }

        long length() {
            return end - start;
        }
    }

    /**
     * The bytes {@code [start, start + length)} of {@code key} if ranges that follow each other hold all of them: a
     * future of exactly those bytes (copied together when they span two ranges, as a read that crosses from one part
     * to the next does), which fails if a range's GET fails. Empty when they are not all held. A range this read
     * reaches the end of is dropped.
     */
    synchronized Optional<CompletableFuture<ByteBuf>> find(String key, long start, long length) {
        TreeMap<Long, Range> ranges = byObject.get(key);
        Map.Entry<Long, Range> floor = ranges == null ? null : ranges.floorEntry(start);
        if (floor == null || floor.getValue().end <= start) {
            return Optional.empty();
        }
        long end = start + length;
        List<Range> parts = new ArrayList<>(2);
        Range r = floor.getValue();
        parts.add(r);
        while (r.end < end) {
            r = ranges.get(r.end);
            if (r == null) {
                return Optional.empty();
            }
            parts.add(r);
        }
        long now = nanoClock.getAsLong();
        for (Range part : parts) {
            part.users++;
            if (part.end <= end) {
                drop(part);
            } else {
                part.touched = now;
                byUse.get(part);
            }
        }
        CompletableFuture<ByteBuf> bytes;
        if (parts.size() == 1) {
            Range only = parts.get(0);
            int at = Math.toIntExact(start - only.start);
            int n = Math.toIntExact(length);
            bytes = only.data.thenApply(b -> b.retainedSlice(b.readerIndex() + at, n));
        } else {
            bytes = CompletableFuture.allOf(parts.stream().map(p -> p.data).toArray(CompletableFuture[]::new))
                    .thenApply(v -> {
                        // Slices of the ranges one after the other: no copy.
                        CompositeByteBuf out = Unpooled.compositeBuffer(parts.size());
                        for (Range part : parts) {
                            long from = Math.max(start, part.start);
                            long to = Math.min(end, part.end);
                            ByteBuf b = part.data.join();
                            out.addComponent(
                                    true,
                                    b.retainedSlice(
                                            b.readerIndex() + Math.toIntExact(from - part.start),
                                            Math.toIntExact(to - from)));
                        }
                        return out;
                    });
        }
        // the callback settles the ranges either way.
        var unused = bytes.whenComplete((b, e) -> {
            synchronized (this) {
                for (Range part : parts) {
                    part.users--;
                    releaseIfUnused(part);
                }
            }
        });
        return Optional.of(bytes);
    }

    /**
     * Makes sure the bytes of {@code key} from {@code from} on, {@code wanted} of them but not past {@code end}, are
     * fetched or being fetched: what is not yet is fetched in whole parts of {@code part} bytes (the last part of the
     * stream's bytes in the object may be shorter), in parallel, as far as the budget allows. So a reader moving on
     * in small steps triggers one GET per part, not one per step, and keeps about {@code wanted} bytes of GETs going
     * ahead of it.
     */
    void readAhead(String key, long from, long end, long wanted, long part) {
        List<Range> added = new ArrayList<>(PARTS);
        synchronized (this) {
            long now = nanoClock.getAsLong();
            TreeMap<Long, Range> ranges = byObject.getOrDefault(key, EMPTY);
            long covered = coveredFrom(ranges, from);
            long until = Math.min(end, from + wanted);
            while (covered < until) {
                long stop = Math.min(end, covered + part);
                // Stop short of the next range, so that ranges never overlap.
                Long next = ranges.higherKey(covered);
                if (next != null && next < stop) {
                    stop = next;
                }
                if (!makeRoom(stop - covered, now)) {
                    break;
                }
                Range r = new Range(key, covered, stop, now);
                ranges = byObject.computeIfAbsent(key, k -> new TreeMap<>());
                ranges.put(r.start, r);
                byUse.put(r, Boolean.TRUE);
                bytes += r.length();
                fetches++;
                added.add(r);
                covered = coveredFrom(ranges, stop);
            }
        }
        for (Range range : added) {
            // the callback completes the range's data either way.
            var unused = objects.get(key, range.start, range.length(), allocator)
                    .whenComplete((b, e) -> {
                        if (e == null && b.readableBytes() == range.length()) {
                            range.data.complete(b);
                            synchronized (this) {
                                releaseIfUnused(range);
                            }
                            return;
                        }
                        synchronized (this) {
                            drop(range);
                        }
                        int got = b == null ? 0 : b.readableBytes();
                        if (b != null) {
                            b.release();
                        }
                        range.data.completeExceptionally(
                                e != null
                                        ? e
                                        : new IllegalStateException("read-ahead of " + key + " bytes " + range.start
                                                + ".." + range.end + " returned " + got + " bytes"));
                    });
        }
    }

    /** Where the ranges that follow each other from {@code from} on end ({@code from} itself when none holds it). */
    private static long coveredFrom(NavigableMap<Long, Range> ranges, long from) {
        Map.Entry<Long, Range> floor = ranges.floorEntry(from);
        long covered = floor != null && floor.getValue().end > from ? floor.getValue().end : from;
        Range next;
        while ((next = ranges.get(covered)) != null) {
            covered = next.end;
        }
        return covered;
    }

    /** Whether {@code length} more bytes fit, once ranges untouched for {@link #STALE_NANOS} are dropped. */
    private boolean makeRoom(long length, long now) {
        Iterator<Range> it = byUse.keySet().iterator();
        while (bytes + length > maxBytes && it.hasNext()) {
            Range r = it.next();
            if (now - r.touched < STALE_NANOS) {
                break;
            }
            it.remove();
            forget(r);
        }
        return bytes + length <= maxBytes;
    }

    private void drop(Range r) {
        if (byUse.remove(r) != null) {
            forget(r);
        }
    }

    private void forget(Range r) {
        r.dropped = true;
        releaseIfUnused(r);
        bytes -= r.length();
        TreeMap<Long, Range> ranges = byObject.get(r.key);
        if (ranges != null && ranges.remove(r.start, r) && ranges.isEmpty()) {
            byObject.remove(r.key);
        }
    }

    /**
     * Releases a dropped range's buffer once it has arrived and no find is still taking a slice of it. Called under
     * the cache's lock whenever one of those conditions may have come true.
     */
    private void releaseIfUnused(Range r) {
        if (r.dropped && !r.released && r.users == 0 && r.data.isDone() && !r.data.isCompletedExceptionally()) {
            r.released = true;
            r.data.join().release();
        }
    }

    /** Releases every range's buffer (once fetched): the reader is closing. */
    synchronized void clear() {
        for (Range r : new ArrayList<>(byUse.keySet())) {
            drop(r);
        }
    }

    /** Bytes held or being fetched. */
    synchronized long bytes() {
        return bytes;
    }

    /** Ranges fetched ahead so far. */
    synchronized long fetches() {
        return fetches;
    }
}
