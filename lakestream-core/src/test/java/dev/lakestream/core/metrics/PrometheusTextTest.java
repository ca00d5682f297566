package dev.lakestream.core.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The text format's escapes: a HELP or label value with a backslash, quote or newline must stay on its line. */
class PrometheusTextTest {

    @Test
    void escapesBackslashAndNewlineInHelp() throws IOException {
        StringBuilder out = new StringBuilder();
        PrometheusText p = new PrometheusText(out, Map.of());

        p.family("lakestream_x", "gauge", "a path C:\\tmp\nand a second line");
        p.sample("lakestream_x", null, 1L);

        assertThat(out.toString()).isEqualTo("""
                        # HELP lakestream_x a path C:\\\\tmp\\nand a second line
                        # TYPE lakestream_x gauge
                        lakestream_x 1
                        """);
        assertThat(PrometheusSamples.parse(out.toString()).get("lakestream_x")).isEqualTo(1);
    }

    @Test
    void escapesBackslashQuoteAndNewlineInLabelValues() throws IOException {
        StringBuilder out = new StringBuilder();
        PrometheusText p = new PrometheusText(out, Map.of("cluster", "a\\b"));

        p.family("lakestream_y", "counter", "y");
        p.sample("lakestream_y", PrometheusText.label("topic", "say \"hi\"\nthere"), 7L);

        assertThat(out.toString()).endsWith("lakestream_y{cluster=\"a\\\\b\",topic=\"say \\\"hi\\\"\\nthere\"} 7\n");
        PrometheusSamples s = PrometheusSamples.parse(out.toString());
        assertThat(s.get("lakestream_y", "cluster", "a\\\\b", "topic", "say \\\"hi\\\"\\nthere"))
                .isEqualTo(7);
    }

    @Test
    void writesCountsExactlyAndSpecialValuesByTheirNames() throws IOException {
        StringBuilder out = new StringBuilder();
        PrometheusText p = new PrometheusText(out, Map.of());

        p.family("lakestream_z", "gauge", "z");
        p.sample("lakestream_z", PrometheusText.label("k", "max"), Long.MAX_VALUE);
        p.sample("lakestream_z", PrometheusText.label("k", "inf"), Double.POSITIVE_INFINITY);
        p.sample("lakestream_z", PrometheusText.label("k", "half"), 0.5);

        assertThat(out.toString())
                .contains("lakestream_z{k=\"max\"} 9223372036854775807\n")
                .contains("lakestream_z{k=\"inf\"} +Inf\n")
                .contains("lakestream_z{k=\"half\"} 0.5\n");
    }
}
