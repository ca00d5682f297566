package dev.lakestream.core.metrics;

import java.io.IOException;
import java.math.BigDecimal;
import java.util.Map;

/**
 * Writes series in the Prometheus text exposition format (version 0.0.4), with labels common to every sample; the
 * one renderer of the project's {@code /metrics} text (the storage's and the Iceberg materializers'). HELP text is
 * escaped ({@code \\}, newline) and label values too ({@code \\}, {@code "}, newline), as the format asks.
 *
 * <p>Kept by hand rather than simpleclient's {@code TextFormat}: that needs every series built as
 * {@code MetricFamilySamples} of doubles first (counts past 2^53 would round), where this streams each sample.
 */
public final class PrometheusText {

    private final Appendable out;
    private final String commonLabels;

    public PrometheusText(Appendable out, Map<String, String> commonLabels) {
        this.out = out;
        StringBuilder b = new StringBuilder();
        commonLabels.forEach((k, v) -> label(b, k, v));
        this.commonLabels = b.toString();
    }

    /** The HELP and TYPE lines of a metric family; once per family, before its samples. */
    public void family(String name, String type, String help) throws IOException {
        out.append("# HELP ")
                .append(name)
                .append(' ')
                .append(help.replace("\\", "\\\\").replace("\n", "\\n"))
                .append('\n');
        out.append("# TYPE ").append(name).append(' ').append(type).append('\n');
    }

    /** A sample; {@code labels} is null or {@link #label}s concatenated. */
    public void sample(String name, String labels, double value) throws IOException {
        sample(name, labels, number(value));
    }

    /** A count, written exactly (a double would round counts past 2^53). */
    public void sample(String name, String labels, long value) throws IOException {
        sample(name, labels, Long.toString(value));
    }

    private void sample(String name, String labels, String value) throws IOException {
        out.append(name);
        String all = commonLabels + (labels == null ? "" : labels);
        if (!all.isEmpty()) {
            out.append('{').append(all, 0, all.length() - 1).append('}');
        }
        out.append(' ').append(value).append('\n');
    }

    void histogram(String name, String labels, LatencyHistogram.Snapshot h) throws IOException {
        String base = labels == null ? "" : labels;
        long[] cumulative = h.cumulative();
        for (int i = 0; i < LatencyHistogram.BOUNDS_SECONDS.length; i++) {
            sample(name + "_bucket", base + label("le", number(LatencyHistogram.BOUNDS_SECONDS[i])), cumulative[i]);
        }
        sample(name + "_bucket", base + label("le", "+Inf"), h.count());
        sample(name + "_sum", labels, h.sumSeconds());
        sample(name + "_count", labels, h.count());
    }

    /** {@code name="value",} (the trailing comma is cut when the label set is closed). */
    public static String label(String name, String value) {
        return label(new StringBuilder(), name, value).toString();
    }

    private static StringBuilder label(StringBuilder b, String name, String value) {
        return b.append(name)
                .append("=\"")
                .append(value.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n"))
                .append("\",");
    }

    static String number(double v) {
        if (Double.isNaN(v)) {
            return "NaN";
        }
        if (Double.isInfinite(v)) {
            return v > 0 ? "+Inf" : "-Inf";
        }
        if (v == Math.rint(v) && Math.abs(v) < 1e15) {
            return Long.toString((long) v);
        }
        return BigDecimal.valueOf(v).toPlainString();
    }
}
