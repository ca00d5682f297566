package dev.lakestream.tests.bench;

import dev.lakestream.core.metrics.LakestreamMetrics;
import dev.lakestream.core.metrics.LatencyHistogram;
import dev.lakestream.core.metrics.OperationMetrics;
import dev.lakestream.pulsar.LakestreamManagedLedgerStorage;
import dev.lakestream.tests.PulsarBrokerExtension;

/**
 * The broker's own Lakestream metrics (object-store PUTs and index commits, timed by its counting decorators), read
 * in-process between two marks: how many PUTs a run made and their latencies, next to the publish latency of the
 * same run. Percentiles come from the metrics' fixed buckets (0.5, 1, 2.5, 5, 10, 25, 50, 100 ms, ...), interpolated
 * linearly inside the bucket that holds them: good to about a bucket's width.
 */
final class LakestreamCalls {

    private static final double[] BOUNDS = LatencyHistogram.boundsSeconds();

    private final LakestreamMetrics metrics;

    LakestreamCalls(PulsarBrokerExtension broker) {
        this.metrics = ((LakestreamManagedLedgerStorage) broker.pulsar().getManagedLedgerStorage())
                .lakestream()
                .metrics();
    }

    record Mark(long nanos, long puts, LatencyHistogram.Snapshot put, LatencyHistogram.Snapshot commit) {}

    /** PUTs and index commits between two marks. */
    record Window(double seconds, long puts, double putP50, double putP99, double commitP50, double commitP99) {

        double putsPerSecond() {
            return puts / seconds;
        }
    }

    Mark mark() {
        OperationMetrics put = metrics.objectStore(LakestreamMetrics.ObjectStoreOp.PUT);
        return new Mark(
                System.nanoTime(),
                put.requests(),
                put.latency().snapshot(),
                metrics.indexCommits().latency().snapshot());
    }

    Window since(Mark from) {
        Mark to = mark();
        return new Window(
                (to.nanos() - from.nanos()) / 1e9,
                to.puts() - from.puts(),
                quantileMillis(from.put(), to.put(), 0.5),
                quantileMillis(from.put(), to.put(), 0.99),
                quantileMillis(from.commit(), to.commit(), 0.5),
                quantileMillis(from.commit(), to.commit(), 0.99));
    }

    /** The q-quantile in ms of what was recorded between two snapshots; NaN when nothing was. */
    static double quantileMillis(LatencyHistogram.Snapshot a, LatencyHistogram.Snapshot b, double q) {
        long[] ca = a.cumulative();
        long[] cb = b.cumulative();
        long n = cb[cb.length - 1] - ca[ca.length - 1];
        if (n <= 0) {
            return Double.NaN;
        }
        double rank = q * n;
        long below = 0;
        for (int i = 0; i < cb.length; i++) {
            long upTo = cb[i] - ca[i];
            if (upTo >= rank) {
                double lo = i == 0 ? 0 : BOUNDS[i - 1];
                double hi = i < BOUNDS.length ? BOUNDS[i] : BOUNDS[BOUNDS.length - 1];
                long inBucket = upTo - below;
                double f = inBucket == 0 ? 1 : (rank - below) / inBucket;
                return (lo + f * (hi - lo)) * 1000;
            }
            below = upTo;
        }
        return BOUNDS[BOUNDS.length - 1] * 1000;
    }
}
