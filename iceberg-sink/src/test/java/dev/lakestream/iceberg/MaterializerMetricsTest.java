package dev.lakestream.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lakestream.core.metrics.PrometheusSamples;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The {@code lakestream_iceberg_*} text, read back by the strict parser: every family, its samples, its escapes. */
class MaterializerMetricsTest {

    private static final long NOW = 1_000_000L;

    @Test
    void everySeriesPerTopicWithEscapedLabels() {
        MaterializerStatus status = new MaterializerStatus(
                MaterializerStatus.State.PAUSED, 10, 10, NOW - 4_000, "bad schema", 3, 300, 2, 1, 15, NOW - 2_500, 5);
        MemoryBudget budget = new MemoryBudget(1 << 20);
        budget.adjust(4096);
        StringBuilder out = new StringBuilder();

        MaterializerMetrics.writePrometheus(
                out,
                Map.of("cluster", "c\\1"),
                List.of(new MaterializerMetrics.Topic("persistent://t/n/a", "db.\"odd\"\ntable", status)),
                budget,
                NOW);

        PrometheusSamples s = PrometheusSamples.parse(out.toString());
        String[] topic = {"cluster", "c\\\\1", "topic", "persistent://t/n/a", "table", "db.\\\"odd\\\"\\ntable"};
        assertThat(s.get("lakestream_iceberg_topics", "cluster", "c\\\\1")).isEqualTo(1);
        assertThat(s.get("lakestream_iceberg_buffered_bytes", "cluster", "c\\\\1"))
                .isEqualTo(4096);
        assertThat(s.get("lakestream_iceberg_buffered_bytes_limit", "cluster", "c\\\\1"))
                .isEqualTo(1 << 20);
        assertThat(s.get("lakestream_iceberg_lag_seconds", topic)).isEqualTo(2.5);
        assertThat(s.get("lakestream_iceberg_committed_offset", topic)).isEqualTo(10);
        assertThat(s.get("lakestream_iceberg_lag_entries", topic)).isEqualTo(5);
        assertThat(s.get("lakestream_iceberg_commits_total", topic)).isEqualTo(3);
        assertThat(s.get("lakestream_iceberg_rows_total", topic)).isEqualTo(300);
        assertThat(s.get("lakestream_iceberg_dead_letters_total", topic)).isEqualTo(2);
        assertThat(s.get("lakestream_iceberg_conflicts_total", topic)).isEqualTo(1);
        assertThat(s.get("lakestream_iceberg_reads_held_total", topic)).isEqualTo(5);
        assertThat(s.get("lakestream_iceberg_paused", topic)).isEqualTo(1);
        assertThat(s.get("lakestream_iceberg_failing", topic)).isZero();
        assertThat(s.types)
                .allSatisfy((name, type) -> assertThat(name.endsWith("_total")).isEqualTo(type.equals("counter")));
    }

    @Test
    void noBudgetNoBufferedSeries() {
        StringBuilder out = new StringBuilder();

        MaterializerMetrics.writePrometheus(out, Map.of(), List.of(), null, NOW);

        PrometheusSamples s = PrometheusSamples.parse(out.toString());
        assertThat(s.get("lakestream_iceberg_topics")).isZero();
        assertThat(s.types).doesNotContainKey("lakestream_iceberg_buffered_bytes");
    }
}
