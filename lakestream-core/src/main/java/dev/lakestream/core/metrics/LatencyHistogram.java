package dev.lakestream.core.metrics;

import java.util.concurrent.atomic.LongAdder;

/**
 * A latency histogram with fixed buckets, updated without locks (one {@link LongAdder} per bucket), so recording
 * costs a few additions on the caller's thread. Read as Prometheus cumulative buckets.
 *
 * <p>Kept rather than HdrHistogram (which the benchmarks use): /metrics needs these fixed {@code le} buckets, which an
 * HdrHistogram would have to be walked for at every scrape, and 15 adders are smaller than its counts array.
 */
public final class LatencyHistogram {

    /** Upper bounds of the buckets in seconds: 0.5 ms to 10 s, enough for object-store and metadata calls. */
    static final double[] BOUNDS_SECONDS = {
        0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10
    };

    private static final long[] BOUNDS_NANOS = new long[BOUNDS_SECONDS.length];

    static {
        for (int i = 0; i < BOUNDS_SECONDS.length; i++) {
            BOUNDS_NANOS[i] = Math.round(BOUNDS_SECONDS[i] * 1e9);
        }
    }

    /** Per bucket, not cumulative; the last one counts what is above every bound. */
    private final LongAdder[] buckets = new LongAdder[BOUNDS_SECONDS.length + 1];

    private final LongAdder sumNanos = new LongAdder();

    public LatencyHistogram() {
        for (int i = 0; i < buckets.length; i++) {
            buckets[i] = new LongAdder();
        }
    }

    /** The buckets' upper bounds in seconds (a copy), for readers of {@link Snapshot#cumulative()}. */
    public static double[] boundsSeconds() {
        return BOUNDS_SECONDS.clone();
    }

    public void record(long nanos) {
        long n = Math.max(0, nanos);
        int i = 0;
        while (i < BOUNDS_NANOS.length && n > BOUNDS_NANOS[i]) {
            i++;
        }
        buckets[i].increment();
        sumNanos.add(n);
    }

    /** A consistent-enough copy: each bucket is read once, the count is their total. */
    public Snapshot snapshot() {
        long[] cumulative = new long[buckets.length];
        long running = 0;
        for (int i = 0; i < buckets.length; i++) {
            running += buckets[i].sum();
            cumulative[i] = running;
        }
        return new Snapshot(cumulative, sumNanos.sum() / 1e9);
    }

    /**
     * What a histogram had observed at one moment.
     *
     * @param cumulative observations at or below each bound of {@link #BOUNDS_SECONDS}, then the total
     * @param sumSeconds the sum of all observations
     */
    @SuppressWarnings("ArrayRecordComponent") // a read-only copy taken for one export, never compared
    public record Snapshot(long[] cumulative, double sumSeconds) {

        public long count() {
            return cumulative[cumulative.length - 1];
        }
    }
}
