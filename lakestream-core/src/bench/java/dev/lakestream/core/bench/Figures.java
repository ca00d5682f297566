package dev.lakestream.core.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/** Units, medians over runs, and how figures are printed (always {@link Locale#ROOT}). */
final class Figures {

    static final double MIB = 1024.0 * 1024.0;
    static final double GIB = MIB * 1024.0;

    private Figures() {}

    static <T> double median(List<T> runs, ToDoubleFunction<T> f) {
        double[] v = runs.stream().mapToDouble(f).sorted().toArray();
        if (v.length == 0) {
            return Double.NaN;
        }
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    /** The run whose figure is the median (the lower middle one for an even count). */
    static <T> T medianRun(List<T> runs, ToDoubleFunction<T> f) {
        List<T> sorted = new ArrayList<>(runs);
        sorted.sort((a, c) -> Double.compare(f.applyAsDouble(a), f.applyAsDouble(c)));
        return sorted.get((sorted.size() - 1) / 2);
    }

    /** The value at quantile {@code q} of a nanosecond histogram, in milliseconds. */
    static double ms(Histogram h, double q) {
        return h.percentile(q) / 1e6;
    }

    static String fmt(String format, double v) {
        return String.format(Locale.ROOT, format, v);
    }

    static String fmt(String format, long v) {
        return String.format(Locale.ROOT, format, v);
    }

    /** A byte count in whole MiB or KiB where it is one, else in bytes. */
    static String size(long bytes) {
        if (bytes >= (1L << 20) && bytes % (1L << 20) == 0) {
            return (bytes >> 20) + " MiB";
        }
        if (bytes >= 1024 && bytes % 1024 == 0) {
            return (bytes >> 10) + " KiB";
        }
        return bytes + " B";
    }
}
