package dev.lakestream.core.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** The benchmarks' histogram over HdrHistogram: percentiles within 0.1 %, exact sums and counts. */
class HistogramTest {

    @Test
    void percentilesCountsAndSums() {
        Histogram h = new Histogram();
        for (long v = 1; v <= 1000; v++) {
            h.record(v * 1_000_000); // 1..1000 ms in nanoseconds
        }
        h.record(-5); // recorded as 0

        assertThat(h.count()).isEqualTo(1001);
        assertThat(h.sum()).isEqualTo(500_500L * 1_000_000);
        assertThat(h.percentile(0.5)).isCloseTo(500e6, within(0.5e6));
        assertThat(h.percentile(0.99)).isCloseTo(990e6, within(1e6));
        assertThat(h.max()).isCloseTo(1000e6, within(1e6));
        assertThat(h.countAtLeast(901_000_000)).isEqualTo(100);
        assertThat(h.countAtLeast(2_000_000_000L)).isZero();
    }

    @Test
    void emptyIsNaN() {
        Histogram h = new Histogram();

        assertThat(h.percentile(0.5)).isNaN();
        assertThat(h.mean()).isNaN();
        assertThat(h.countAtLeast(1)).isZero();
    }
}
