package dev.lakestream.core.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lakestream.core.wal.ObjectCache;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The Prometheus rendering of the metrics, without stores (the log tests check the figures on real stores). */
class LakestreamMetricsTest {

    @Test
    void rendersEveryFamilyOnceWithHelpTypeAndCumulativeBuckets() {
        ObjectCache cache = new ObjectCache(1000);
        cache.put("k", io.netty.buffer.Unpooled.buffer(10).writerIndex(10));
        cache.get("k");
        cache.get("k");
        cache.get("other");
        LakestreamMetrics m = new LakestreamMetrics(cache, 1000, () -> 42);
        OperationMetrics puts = m.objectStore(LakestreamMetrics.ObjectStoreOp.PUT);
        long now = System.nanoTime();
        puts.completed(now - 3_000_000, 100); // 3 ms
        puts.completed(now - 3_000_000_000L, 50); // 3 s
        puts.failed(now - 20_000_000_000L); // 20 s: above every bound
        m.gc().deleted(3, 300);

        PrometheusSamples s = PrometheusSamples.parse(m.prometheusText());

        assertThat(s.types)
                .containsEntry("lakestream_object_store_requests_total", "counter")
                .containsEntry("lakestream_object_store_request_duration_seconds", "histogram")
                .containsEntry("lakestream_cache_hit_ratio", "gauge")
                .containsEntry("lakestream_gc_lease_held", "gauge");
        assertThat(s.types.keySet()).allSatisfy(name -> assertThat(name).startsWith("lakestream_"));
        assertThat(s.types)
                .allSatisfy((name, type) -> assertThat(name.endsWith("_total")).isEqualTo(type.equals("counter")));
        assertThat(s.get("lakestream_object_store_requests_total", "op", "put")).isEqualTo(3);
        assertThat(s.get("lakestream_object_store_errors_total", "op", "put")).isEqualTo(1);
        assertThat(s.get("lakestream_object_store_bytes_total", "op", "put")).isEqualTo(150);
        assertThat(s.get("lakestream_object_store_requests_total", "op", "get")).isZero();
        List<Double> buckets = s.buckets("lakestream_object_store_request_duration_seconds", "op", "put");
        assertThat(buckets).hasSize(LatencyHistogram.BOUNDS_SECONDS.length + 1).isSorted();
        assertThat(s.get("lakestream_object_store_request_duration_seconds_bucket", "op", "put", "le", "0.0025"))
                .isZero();
        assertThat(s.get("lakestream_object_store_request_duration_seconds_bucket", "op", "put", "le", "0.005"))
                .isEqualTo(1);
        assertThat(s.get("lakestream_object_store_request_duration_seconds_bucket", "op", "put", "le", "5"))
                .isEqualTo(2);
        assertThat(s.get("lakestream_object_store_request_duration_seconds_bucket", "op", "put", "le", "+Inf"))
                .isEqualTo(3);
        assertThat(s.get("lakestream_object_store_request_duration_seconds_count", "op", "put"))
                .isEqualTo(3);
        assertThat(s.get("lakestream_object_store_request_duration_seconds_sum", "op", "put"))
                .isBetween(23.0, 30.0);
        assertThat(s.get("lakestream_cache_hits_total")).isEqualTo(2);
        assertThat(s.get("lakestream_cache_misses_total")).isEqualTo(1);
        assertThat(s.get("lakestream_cache_hit_ratio")).isCloseTo(2.0 / 3, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(s.get("lakestream_cache_bytes")).isEqualTo(10);
        assertThat(s.get("lakestream_writer_pending_bytes")).isEqualTo(42);
        assertThat(s.get("lakestream_gc_deleted_objects_total")).isEqualTo(3);
        assertThat(s.get("lakestream_gc_deleted_bytes_total")).isEqualTo(300);
        assertThat(s.get("lakestream_gc_last_run_timestamp_seconds")).isZero();
    }

    @Test
    void commonLabelsGoOnEverySampleEscaped() {
        LakestreamMetrics m = new LakestreamMetrics(new ObjectCache(1), 1, () -> 0);
        StringBuilder out = new StringBuilder();
        m.writePrometheus(out, Map.of("cluster", "a \"b\"\\c"));

        PrometheusSamples s = PrometheusSamples.parse(out.toString());

        assertThat(s.get("lakestream_writer_pending_bytes", "cluster", "a \\\"b\\\"\\\\c"))
                .isZero();
        assertThat(s.get("lakestream_object_store_requests_total", "cluster", "a \\\"b\\\"\\\\c", "op", "list"))
                .isZero();
        assertThat(s.lines)
                .filteredOn(l -> !l.startsWith("#"))
                .allSatisfy(l -> assertThat(l).contains("cluster="));
    }
}
