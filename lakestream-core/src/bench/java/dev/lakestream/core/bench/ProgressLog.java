package dev.lakestream.core.bench;

import java.util.Locale;

/** Progress lines on standard output, stamped with the seconds since the benchmark started. */
final class ProgressLog {

    private final long startNanos = System.nanoTime();

    @SuppressWarnings("AnnotateFormatMethod") // callers pass constant formats; no annotations jar on the bench path
    void log(String format, Object... args) {
        double t = (System.nanoTime() - startNanos) / 1e9;
        System.out.println(String.format(Locale.ROOT, "[bench %6.1fs] ", t) + String.format(Locale.ROOT, format, args));
    }

    /** How long the benchmark has run so far, in minutes. */
    double minutes() {
        return (System.nanoTime() - startNanos) / 60e9;
    }
}
