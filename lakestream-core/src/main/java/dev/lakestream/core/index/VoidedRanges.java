package dev.lakestream.core.index;

import java.util.ArrayList;
import java.util.List;

/**
 * The offset ranges of void entries a compacted record holds ({@link IndexValue#EXTRA_VOIDED}), encoded
 * {@code start-end,start-end} with ends exclusive, in offset order. Compaction copies a void entry into the segment
 * with an empty payload and names its range here, so it stays void.
 */
public final class VoidedRanges {

    private final List<long[]> ranges = new ArrayList<>();

    /** No ranges. */
    public VoidedRanges() {}

    /** The ranges of a compacted record's value (none when it names none). */
    public static VoidedRanges of(IndexValue value) {
        VoidedRanges r = new VoidedRanges();
        String text = value.extraData().get(IndexValue.EXTRA_VOIDED);
        if (text == null || text.isEmpty()) {
            return r;
        }
        for (String part : text.split(",")) {
            int dash = part.indexOf('-');
            try {
                r.add(Long.parseLong(part.substring(0, dash)), Long.parseLong(part.substring(dash + 1)));
            } catch (RuntimeException e) {
                throw new IndexFormatException(
                        value.location(), IndexValue.EXTRA_VOIDED + " is not a list of start-end ranges: " + text);
            }
        }
        return r;
    }

    /** Adds {@code [start, end)}; joins it to the last range when they touch. Ranges must come in offset order. */
    public void add(long start, long end) {
        if (!ranges.isEmpty() && ranges.get(ranges.size() - 1)[1] == start) {
            ranges.get(ranges.size() - 1)[1] = end;
        } else {
            ranges.add(new long[] {start, end});
        }
    }

    public boolean isEmpty() {
        return ranges.isEmpty();
    }

    /** Whether {@code offset} lies in a void range. */
    public boolean contains(long offset) {
        for (long[] r : ranges) {
            if (offset >= r[0] && offset < r[1]) {
                return true;
            }
        }
        return false;
    }

    /** The {@link IndexValue#EXTRA_VOIDED} text. */
    public String encode() {
        StringBuilder b = new StringBuilder();
        for (long[] r : ranges) {
            if (b.length() > 0) {
                b.append(',');
            }
            b.append(r[0]).append('-').append(r[1]);
        }
        return b.toString();
    }
}
