package dev.lakestream.iceberg;

import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * The {@code lakestream_iceberg_*} series in the Prometheus text format, one sample per materialized topic partition
 * (labels {@code topic}, {@code table}, plus a host's common labels), read from each materializer's published
 * {@link MaterializerStatus}; and the process's memory budget. Written by both hosts: the broker's {@code /metrics}
 * and the standalone tool's. Listed in docs/iceberg.md.
 */
public final class MaterializerMetrics {

    /** One materialized topic partition as the metrics show it. */
    public record Topic(String topic, String table, MaterializerStatus status) {}

    private record Series(String name, String type, String help, ToDoubleFunction<MaterializerStatus> value) {}

    private static final List<Series> SERIES = List.of(
            new Series(
                    "lakestream_iceberg_committed_offset",
                    "gauge",
                    "Stream offset the table holds every entry below (-1 before the first commit)",
                    MaterializerStatus::committedOffset),
            new Series(
                    "lakestream_iceberg_lag_entries",
                    "gauge",
                    "Entries in the topic partition's stream not yet committed to the table",
                    MaterializerStatus::lagEntries),
            new Series(
                    "lakestream_iceberg_commits_total",
                    "counter",
                    "Iceberg commits made (since the runner started)",
                    MaterializerStatus::commits),
            new Series(
                    "lakestream_iceberg_rows_total",
                    "counter",
                    "Rows committed to the table (since the runner" + " started)",
                    MaterializerStatus::rowsCommitted),
            new Series(
                    "lakestream_iceberg_dead_letters_total",
                    "counter",
                    "Messages that could not be decoded against their schema, sent to the dead letters",
                    MaterializerStatus::deadLetters),
            new Series(
                    "lakestream_iceberg_conflicts_total",
                    "counter",
                    "Commits abandoned because another materializer had committed the same offsets",
                    MaterializerStatus::conflicts),
            new Series(
                    "lakestream_iceberg_reads_held_total",
                    "counter",
                    "Reads put off because the process's buffered entries were at lakestream.iceberg.maxBufferedBytes",
                    MaterializerStatus::readsHeld),
            new Series(
                    "lakestream_iceberg_paused",
                    "gauge",
                    "1 when materialization is paused on a schema or message it cannot take (see the log)",
                    s -> s.state() == MaterializerStatus.State.PAUSED ? 1 : 0),
            new Series(
                    "lakestream_iceberg_failing",
                    "gauge",
                    "1 while the last attempt failed and the materializer retries from the table's offsets",
                    s -> s.state() == MaterializerStatus.State.RETRYING ? 1 : 0));

    private MaterializerMetrics() {}

    /**
     * Appends every series, each sample with {@code commonLabels} too.
     *
     * @param budget the process's memory budget, or null when there is none to show
     */
    public static void writePrometheus(
            StringBuilder out,
            Map<String, String> commonLabels,
            List<Topic> topics,
            MemoryBudget budget,
            long nowMillis) {
        StringBuilder common = new StringBuilder();
        commonLabels.forEach((k, v) -> label(common, k, v));
        family(out, "lakestream_iceberg_topics", "gauge", "Topic partitions this process materializes");
        sample(out, "lakestream_iceberg_topics", common, "", topics.size());
        if (budget != null) {
            family(
                    out,
                    "lakestream_iceberg_buffered_bytes",
                    "gauge",
                    "Bytes of stream entries read and not yet committed, across the process's materializers");
            sample(out, "lakestream_iceberg_buffered_bytes", common, "", (double) budget.used());
            family(
                    out,
                    "lakestream_iceberg_buffered_bytes_limit",
                    "gauge",
                    "lakestream.iceberg.maxBufferedBytes: reading pauses when the buffered bytes reach it");
            sample(out, "lakestream_iceberg_buffered_bytes_limit", common, "", (double) budget.limit());
        }
        family(
                out,
                "lakestream_iceberg_lag_seconds",
                "gauge",
                "How long the oldest entry not yet in the table has waited (0 when the table is up to date)");
        for (Topic t : topics) {
            sample(
                    out,
                    "lakestream_iceberg_lag_seconds",
                    common,
                    labels(t),
                    t.status().lagMillis(nowMillis) / 1000.0);
        }
        for (Series s : SERIES) {
            family(out, s.name(), s.type(), s.help());
            for (Topic t : topics) {
                sample(out, s.name(), common, labels(t), s.value().applyAsDouble(t.status()));
            }
        }
    }

    private static String labels(Topic t) {
        StringBuilder b = new StringBuilder();
        label(b, "topic", t.topic());
        label(b, "table", t.table());
        return b.toString();
    }

    private static void family(StringBuilder out, String name, String type, String help) {
        out.append("# HELP ").append(name).append(' ').append(help).append('\n');
        out.append("# TYPE ").append(name).append(' ').append(type).append('\n');
    }

    private static void sample(StringBuilder out, String name, CharSequence common, String labels, double value) {
        out.append(name);
        String all = common + labels;
        if (!all.isEmpty()) {
            out.append('{').append(all, 0, all.length() - 1).append('}');
        }
        out.append(' ');
        if (value == Math.rint(value) && !Double.isInfinite(value)) {
            out.append((long) value);
        } else {
            out.append(value);
        }
        out.append('\n');
    }

    /** {@code name="value",} with the text format's escapes. */
    private static void label(StringBuilder b, String name, String value) {
        b.append(name)
                .append("=\"")
                .append(value.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n"))
                .append("\",");
    }
}
