package dev.lakestream.core.bench;

import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.ConcurrentHistogram;

/**
 * The benchmarks' histogram of non-negative longs (nanoseconds, or bytes): HdrHistogram's concurrent, auto-resizing
 * histogram at three significant digits (a reported percentile is within 0.1 % of a recorded value), plus the exact
 * sum the reports print. Recording from many threads is wait-free.
 */
final class Histogram {

    private final ConcurrentHistogram h = new ConcurrentHistogram(3);
    private final LongAdder sum = new LongAdder();

    void record(long value) {
        long v = Math.max(0, value);
        h.recordValue(v);
        sum.add(v);
    }

    long count() {
        return h.getTotalCount();
    }

    long sum() {
        return sum.sum();
    }

    double mean() {
        long n = count();
        return n == 0 ? Double.NaN : (double) sum() / n;
    }

    double max() {
        return count() == 0 ? Double.NaN : h.getMaxValue();
    }

    /** The value at quantile {@code q} (0..1); NaN when empty. */
    double percentile(double q) {
        return count() == 0 ? Double.NaN : h.getValueAtPercentile(q * 100);
    }

    /** Samples recorded at or above {@code value} (to three significant digits). */
    long countAtLeast(long value) {
        long max = h.getMaxValue();
        return count() == 0 || value > max ? 0 : h.getCountBetweenValues(value, max);
    }
}
