package dev.lakestream.tests.bench;

import java.util.Arrays;

/** Latency samples in nanoseconds, kept exactly (a run records at most a few million), and their percentiles. */
final class Latencies {

    private long[] values = new long[1 << 16];
    private int size;

    synchronized void record(long nanos) {
        if (size == values.length) {
            values = Arrays.copyOf(values, size * 2);
        }
        values[size++] = nanos;
    }

    synchronized int count() {
        return size;
    }

    /** The q-quantile (0..1) in milliseconds, NaN when there is no sample. */
    synchronized double percentileMillis(double q) {
        if (size == 0) {
            return Double.NaN;
        }
        long[] sorted = Arrays.copyOf(values, size);
        Arrays.sort(sorted);
        int i = (int) Math.min(size - 1, Math.max(0, Math.ceil(q * size) - 1));
        return sorted[i] / 1e6;
    }
}
