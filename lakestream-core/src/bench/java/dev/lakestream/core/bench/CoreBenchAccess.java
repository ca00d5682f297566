package dev.lakestream.core.bench;

/**
 * A public door onto this package's helpers ({@link Histogram}, {@link Machine},
 * {@link CpuMeter}, in {@code lakestream-core/src/bench/java}), for benchmarks in other packages. It only
 * delegates: the helpers themselves are compiled from the core's bench folder, not copied.
 */
public final class CoreBenchAccess {

    private CoreBenchAccess() {}

    /** A latency histogram in nanoseconds. */
    public static final class Latency {
        private final Histogram h = new Histogram();

        public void record(long nanos) {
            h.record(nanos);
        }

        public long count() {
            return h.count();
        }

        /** The value at quantile {@code q} in milliseconds. */
        public double millis(double q) {
            return h.percentile(q) / 1e6;
        }

        public double maxMillis() {
            return h.max() / 1e6;
        }
    }

    /** CPU of this JVM, S3Proxy, Oxia and every other process over an interval. */
    public static final class Cpu {
        private final CpuMeter meter = new CpuMeter();
        private CpuMeter.Snapshot start;

        public void start() {
            start = meter.snapshot();
        }

        /** Busy cores of processes other than the benchmark and its servers since {@link #start()}. */
        public Usage stop() {
            CpuMeter.Usage u = CpuMeter.between(start, meter.snapshot());
            return new Usage(u.others(), u.summary(machine().cores()), u.topThreads(6));
        }
    }

    /** Other processes' busy cores, a one-line summary per process, and the busiest thread groups. */
    public record Usage(double otherCores, String summary, String topThreads) {}

    /** e.g. {@code 2 cores (nproc), Intel(R) Xeon(R) ..., 23.5 GiB RAM; <JDK>; <OS>}. */
    public static String machineLine() {
        Machine m = machine();
        return m.cores() + " cores (`nproc`), " + m.cpu() + ", " + m.memory() + " RAM; " + m.jdk() + "; " + m.os();
    }

    public static String loadAverage() {
        return Machine.loadAverage();
    }

    private static Machine machine() {
        return Machine.describe();
    }
}
