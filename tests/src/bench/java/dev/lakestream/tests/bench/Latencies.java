package dev.lakestream.tests.bench;

import org.HdrHistogram.ConcurrentHistogram;

/** Latency samples in nanoseconds (HdrHistogram, three significant digits) and their percentiles. */
final class Latencies {

    private final ConcurrentHistogram nanos = new ConcurrentHistogram(3);

    void record(long nanos) {
        this.nanos.recordValue(Math.max(0, nanos));
    }

    int count() {
        return (int) nanos.getTotalCount();
    }

    /** The q-quantile (0..1) in milliseconds, NaN when there is no sample. */
    double percentileMillis(double q) {
        return nanos.getTotalCount() == 0 ? Double.NaN : nanos.getValueAtPercentile(q * 100) / 1e6;
    }
}
