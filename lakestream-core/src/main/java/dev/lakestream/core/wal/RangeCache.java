package dev.lakestream.core.wal;

import dev.lakestream.core.objectstore.ObjectStore;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/**
 * Byte ranges of large WAL objects fetched ahead of sequential readers, so that a reader going through a stream's
 * part of a large object in small reads (a broker's dispatcher reads about 100 entries at a time) waits for one GET
 * per read-ahead window instead of one per read, and the store is asked for a few large ranges instead of many small
 * ones.
 *
 * <p>The ranges of one object never overlap: {@link #readAhead} fetches only what is not covered yet. A range is kept,
 * in flight or fetched, until it is the least recently used one and the cache is over its byte budget. A range whose
 * GET fails or comes back short is dropped; a reader that was waiting on it fetches its bytes itself (see
 * {@link #find}). Thread-safe.
 */
final class RangeCache {

    private final ObjectStore objects;
    private final long maxBytes;

    private static final TreeMap<Long, Range> EMPTY = new TreeMap<>();

    private final Map<String, TreeMap<Long, Range>> byObject = new HashMap<>();
    /** Every range, least recently used first. */
    private final LinkedHashMap<Range, Boolean> lru = new LinkedHashMap<>(16, 0.75f, true);
    private long bytes;
    private long fetches;
    private long hits;

    RangeCache(ObjectStore objects, long maxBytes) {
        this.objects = objects;
        this.maxBytes = maxBytes;
    }

    /** Bytes {@code [start, end)} of one object: fetched, or still being fetched. */
    private record Range(String key, long start, long end, CompletableFuture<ByteBuffer> data) {
        long length() {
            return end - start;
        }
    }

    /**
     * The bytes {@code [start, start + length)} of {@code key} if ranges that follow each other hold all of them: a
     * future of exactly those bytes (copied together when they span two ranges, as a read that crosses the end of a
     * read-ahead window does), which fails if a range's GET fails. Empty when they are not all held.
     */
    synchronized Optional<CompletableFuture<ByteBuffer>> find(String key, long start, long length) {
        TreeMap<Long, Range> ranges = byObject.get(key);
        Map.Entry<Long, Range> floor = ranges == null ? null : ranges.floorEntry(start);
        if (floor == null || floor.getValue().end() <= start) {
            return Optional.empty();
        }
        List<Range> parts = new ArrayList<>(2);
        Range r = floor.getValue();
        parts.add(r);
        while (r.end() < start + length) {
            r = ranges.get(r.end());
            if (r == null) {
                return Optional.empty();
            }
            parts.add(r);
        }
        parts.forEach(lru::get);
        hits++;
        if (parts.size() == 1) {
            Range only = parts.get(0);
            int at = Math.toIntExact(start - only.start());
            int n = Math.toIntExact(length);
            return Optional.of(only.data().thenApply(b -> b.slice(b.position() + at, n)));
        }
        return Optional.of(CompletableFuture.allOf(parts.stream().map(Range::data).toArray(CompletableFuture[]::new))
                .thenApply(v -> {
                    ByteBuffer out = ByteBuffer.allocate(Math.toIntExact(length));
                    for (Range part : parts) {
                        long from = Math.max(start, part.start());
                        long to = Math.min(start + length, part.end());
                        ByteBuffer b = part.data().join();
                        out.put(b.slice(b.position() + Math.toIntExact(from - part.start()), Math.toIntExact(to - from)));
                    }
                    return out.flip();
                }));
    }

    /**
     * Makes sure the bytes of {@code key} from {@code from} on, up to {@code window} bytes but not past {@code end},
     * are fetched or being fetched. Nothing is fetched while at least half of that is already covered (so a reader
     * moving on in small steps triggers one GET per half window); otherwise one GET fetches the rest of the window.
     */
    void readAhead(String key, long from, long end, long window) {
        Range added;
        synchronized (this) {
            long wanted = Math.min(end, from + window);
            TreeMap<Long, Range> ranges = byObject.getOrDefault(key, EMPTY);
            long covered = coveredFrom(ranges, from);
            if (covered >= Math.min(end, from + window / 2) || covered >= wanted) {
                return;
            }
            // Stop short of the next range, so that ranges never overlap.
            Long next = ranges.higherKey(covered);
            long fetchEnd = next == null ? wanted : Math.min(wanted, next);
            if (fetchEnd <= covered) {
                return;
            }
            added = new Range(key, covered, fetchEnd, new CompletableFuture<>());
            byObject.computeIfAbsent(key, k -> new TreeMap<>()).put(added.start(), added);
            lru.put(added, Boolean.TRUE);
            bytes += added.length();
            fetches++;
            evictOver(added);
        }
        Range range = added;
        objects.get(key, range.start(), range.length()).whenComplete((b, e) -> {
            if (e == null && b.remaining() == range.length()) {
                range.data().complete(b);
                return;
            }
            remove(range);
            range.data().completeExceptionally(e != null ? e : new IllegalStateException("read-ahead of " + key
                    + " bytes " + range.start() + ".." + range.end() + " returned " + b.remaining() + " bytes"));
        });
    }

    /** Where the ranges that follow each other from {@code from} on end ({@code from} itself when none holds it). */
    private static long coveredFrom(TreeMap<Long, Range> ranges, long from) {
        Map.Entry<Long, Range> floor = ranges.floorEntry(from);
        long covered = floor != null && floor.getValue().end() > from ? floor.getValue().end() : from;
        Range next;
        while ((next = ranges.get(covered)) != null) {
            covered = next.end();
        }
        return covered;
    }

    private void evictOver(Range keep) {
        Iterator<Range> it = lru.keySet().iterator();
        while (bytes > maxBytes && it.hasNext()) {
            Range r = it.next();
            if (r == keep) {
                continue;
            }
            it.remove();
            forget(r);
        }
    }

    private synchronized void remove(Range r) {
        if (lru.remove(r) != null) {
            forget(r);
        }
    }

    private void forget(Range r) {
        bytes -= r.length();
        TreeMap<Long, Range> ranges = byObject.get(r.key());
        if (ranges != null && ranges.remove(r.start(), r) && ranges.isEmpty()) {
            byObject.remove(r.key());
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

    /** Reads served from a range fetched ahead. */
    synchronized long hits() {
        return hits;
    }
}
