package dev.lakestream.iceberg;

import dev.lakestream.core.metrics.PrometheusText;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.function.ToLongFunction;

/**
 * The {@code lakestream_iceberg_*} series in the Prometheus text format, one sample per materialized topic partition
 * (labels {@code topic}, {@code table}, plus a host's common labels), read from each materializer's published
 * {@link MaterializerStatus}; and the process's memory budget. Written by both hosts: the broker's {@code /metrics}
 * and the standalone tool's, both through the core's {@link PrometheusText}. Listed in docs/iceberg.md.
 */
public final class MaterializerMetrics {

    /** One materialized topic partition as the metrics show it. */
    public record Topic(String topic, String table, MaterializerStatus status) {}

    private record Series(String name, String type, String help, ToLongFunction<MaterializerStatus> value) {}

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
                    "Rows committed to the table (since the runner started)",
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
        try {
            write(new PrometheusText(out, commonLabels), topics, budget, nowMillis);
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "Writing the Iceberg materializer metrics failed", e); // not on a StringBuilder
        }
    }

    private static void write(PrometheusText p, List<Topic> topics, MemoryBudget budget, long nowMillis)
            throws IOException {
        p.family("lakestream_iceberg_topics", "gauge", "Topic partitions this process materializes");
        p.sample("lakestream_iceberg_topics", null, topics.size());
        if (budget != null) {
            p.family(
                    "lakestream_iceberg_buffered_bytes",
                    "gauge",
                    "Bytes of stream entries read and not yet committed, across the process's materializers");
            p.sample("lakestream_iceberg_buffered_bytes", null, budget.used());
            p.family(
                    "lakestream_iceberg_buffered_bytes_limit",
                    "gauge",
                    "lakestream.iceberg.maxBufferedBytes: reading pauses when the buffered bytes reach it");
            p.sample("lakestream_iceberg_buffered_bytes_limit", null, budget.limit());
        }
        p.family(
                "lakestream_iceberg_lag_seconds",
                "gauge",
                "How long the oldest entry not yet in the table has waited (0 when the table is up to date)");
        for (Topic t : topics) {
            p.sample("lakestream_iceberg_lag_seconds", labels(t), t.status().lagMillis(nowMillis) / 1000.0);
        }
        for (Series s : SERIES) {
            p.family(s.name(), s.type(), s.help());
            for (Topic t : topics) {
                p.sample(s.name(), labels(t), s.value().applyAsLong(t.status()));
            }
        }
    }

    private static String labels(Topic t) {
        return PrometheusText.label("topic", t.topic()) + PrometheusText.label("table", t.table());
    }
}
