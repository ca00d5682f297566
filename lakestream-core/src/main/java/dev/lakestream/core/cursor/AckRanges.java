package dev.lakestream.core.cursor;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.function.LongConsumer;

/**
 * A set of offsets kept as disjoint, non-adjacent ranges {@code [start, end)}: the offsets a cursor has
 * acknowledged individually beyond its mark-delete point. Adding a range merges it with its neighbours, so
 * the size is the number of holes, not of offsets. Not thread-safe.
 */
public final class AckRanges {

    private final TreeMap<Long, Long> ranges = new TreeMap<>();

    /** Adds {@code [start, end)}; returns how many offsets were not in the set before. */
    public long add(long start, long end) {
        if (start >= end) {
            return 0;
        }
        long added = end - start;
        long s = start;
        long e = end;
        Map.Entry<Long, Long> before = ranges.floorEntry(start);
        if (before != null && before.getValue() >= start) {
            added -= Math.min(before.getValue(), end) - start;
            s = before.getKey();
            e = Math.max(e, before.getValue());
            ranges.remove(before.getKey());
        }
        NavigableMap<Long, Long> overlapping = ranges.subMap(start, true, end, true);
        for (Map.Entry<Long, Long> r : new ArrayList<>(overlapping.entrySet())) {
            added -= Math.min(r.getValue(), end) - r.getKey();
            e = Math.max(e, r.getValue());
            ranges.remove(r.getKey());
        }
        ranges.put(s, e);
        return Math.max(0, added);
    }

    public boolean contains(long offset) {
        Map.Entry<Long, Long> r = ranges.floorEntry(offset);
        return r != null && offset < r.getValue();
    }

    /** Removes every offset below {@code offset} (they moved under the mark-delete point). */
    public void removeBelow(long offset) {
        Map.Entry<Long, Long> straddling = ranges.lowerEntry(offset);
        ranges.headMap(offset, false).clear();
        if (straddling != null && straddling.getValue() > offset) {
            ranges.put(offset, straddling.getValue());
        }
    }

    /** If a range starts exactly at {@code offset}, removes it and returns its end; else returns {@code offset}. */
    public long takeRunFrom(long offset) {
        Long end = ranges.remove(offset);
        return end == null ? offset : end;
    }

    /** How many offsets the set holds. */
    public long count() {
        long n = 0;
        for (Map.Entry<Long, Long> r : ranges.entrySet()) {
            n += r.getValue() - r.getKey();
        }
        return n;
    }

    /** How many offsets of {@code [start, end)} the set holds. */
    public long countIn(long start, long end) {
        long n = 0;
        Map.Entry<Long, Long> first = ranges.floorEntry(start);
        Long from = first != null && first.getValue() > start ? first.getKey() : ranges.ceilingKey(start);
        if (from == null) {
            return 0;
        }
        for (Map.Entry<Long, Long> r : ranges.tailMap(from, true).entrySet()) {
            if (r.getKey() >= end) {
                break;
            }
            n += Math.min(r.getValue(), end) - Math.max(r.getKey(), start);
        }
        return n;
    }

    public int rangeCount() {
        return ranges.size();
    }

    public boolean isEmpty() {
        return ranges.isEmpty();
    }

    /** The ranges in order, as {@code [start, end)} pairs. */
    public List<long[]> toList() {
        List<long[]> out = new ArrayList<>(ranges.size());
        ranges.forEach((s, e) -> out.add(new long[] {s, e}));
        return out;
    }

    /** Calls {@code action} for each range start then end, in order (start0, end0, start1, end1, ...). */
    public void forEachBound(LongConsumer action) {
        ranges.forEach((s, e) -> {
            action.accept(s);
            action.accept(e);
        });
    }

    public AckRanges copy() {
        AckRanges c = new AckRanges();
        c.ranges.putAll(ranges);
        return c;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("[");
        ranges.forEach((s, e) -> sb.append(sb.length() > 1 ? ", " : "")
                .append('[')
                .append(s)
                .append(',')
                .append(e)
                .append(')'));
        return sb.append(']').toString();
    }
}
