package dev.lakestream.core.metrics;

import dev.lakestream.core.metadata.MetadataStore;
import dev.lakestream.core.objectstore.ObjectStore;
import dev.lakestream.core.wal.ObjectCache;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The storage's metrics for one {@code Lakestream} instance: object-store calls, index commits, the object cache,
 * the writer's pending bytes and garbage collection. Counters are {@link java.util.concurrent.atomic.LongAdder}s
 * and latencies lock-free histograms, so recording costs a few additions; gauges are read when rendered.
 * {@link #writePrometheus} renders every series in the Prometheus text format (listed in
 * {@code docs/operations.md}).
 */
public final class LakestreamMetrics {

    /** The object-store calls, as the {@code op} label. A conditional PUT counts as a PUT; ranged GETs as GETs. */
    public enum ObjectStoreOp {
        PUT,
        GET,
        HEAD,
        LIST,
        DELETE;

        String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private final Map<ObjectStoreOp, OperationMetrics> objectStore = new EnumMap<>(ObjectStoreOp.class);
    private final OperationMetrics indexCommits = new OperationMetrics();
    private final GcMetrics gc = new GcMetrics();
    private final CompactionMetrics compaction = new CompactionMetrics();
    private final ObjectCache cache;
    private final long cacheMaxBytes;
    private final LongSupplier pendingAppendBytes;

    /**
     * @param cache the object cache, whose hits, misses and size are read when rendering
     * @param pendingAppendBytes the writer's bytes accepted but not yet stored, read when rendering
     */
    public LakestreamMetrics(ObjectCache cache, long cacheMaxBytes, LongSupplier pendingAppendBytes) {
        for (ObjectStoreOp op : ObjectStoreOp.values()) {
            objectStore.put(op, new OperationMetrics());
        }
        this.cache = cache;
        this.cacheMaxBytes = cacheMaxBytes;
        this.pendingAppendBytes = pendingAppendBytes;
    }

    /** {@code store} with every call counted here; closing it closes {@code store}. */
    public ObjectStore meter(ObjectStore store) {
        return new MeteredObjectStore(store, this);
    }

    /** The view of {@code store} to give the WAL writer: its puts (index commits) are counted here. */
    public MetadataStore meterIndexCommits(MetadataStore store) {
        return new MeteredIndexCommits(store, indexCommits);
    }

    public OperationMetrics objectStore(ObjectStoreOp op) {
        return objectStore.get(op);
    }

    public OperationMetrics indexCommits() {
        return indexCommits;
    }

    public GcMetrics gc() {
        return gc;
    }

    public CompactionMetrics compaction() {
        return compaction;
    }

    /** Hits over lookups of the object cache since start; 0 before the first lookup. */
    public double cacheHitRatio() {
        long hits = cache.hits();
        long lookups = hits + cache.misses();
        return lookups == 0 ? 0 : (double) hits / lookups;
    }

    public long pendingAppendBytes() {
        return pendingAppendBytes.getAsLong();
    }

    /** Every series in the Prometheus text exposition format (0.0.4), e.g. for a broker's {@code /metrics}. */
    public String prometheusText() {
        StringBuilder b = new StringBuilder(16 << 10);
        writePrometheus(b, Map.of());
        return b.toString();
    }

    /**
     * Writes every series in the Prometheus text exposition format (0.0.4) to {@code out}, each sample carrying
     * {@code commonLabels} too (e.g. {@code cluster}); an {@link IOException} of {@code out} is rethrown unchecked.
     */
    public void writePrometheus(Appendable out, Map<String, String> commonLabels) {
        try {
            write(new PrometheusText(out, commonLabels));
        } catch (IOException e) {
            throw new UncheckedIOException("Writing the Lakestream metrics failed", e);
        }
    }

    private void write(PrometheusText p) throws IOException {
        p.family(
                "lakestream_object_store_requests_total",
                "counter",
                "Object-store calls by operation (a multi-key delete counts once)");
        for (ObjectStoreOp op : ObjectStoreOp.values()) {
            p.sample(
                    "lakestream_object_store_requests_total",
                    op(op),
                    objectStore(op).requests());
        }
        p.family("lakestream_object_store_errors_total", "counter", "Object-store calls that failed, by operation");
        for (ObjectStoreOp op : ObjectStoreOp.values()) {
            p.sample(
                    "lakestream_object_store_errors_total",
                    op(op),
                    objectStore(op).errors());
        }
        p.family("lakestream_object_store_bytes_total", "counter", "Payload bytes written by PUTs and read by GETs");
        for (ObjectStoreOp op : new ObjectStoreOp[] {ObjectStoreOp.PUT, ObjectStoreOp.GET}) {
            p.sample(
                    "lakestream_object_store_bytes_total",
                    op(op),
                    objectStore(op).bytes());
        }
        p.family(
                "lakestream_object_store_request_duration_seconds",
                "histogram",
                "Latency of object-store calls, by operation, failed ones included");
        for (ObjectStoreOp op : ObjectStoreOp.values()) {
            p.histogram(
                    "lakestream_object_store_request_duration_seconds",
                    op(op),
                    objectStore(op).latency().snapshot());
        }

        p.family("lakestream_index_commits_total", "counter", "Index records committed by the WAL writer (attempts)");
        p.sample("lakestream_index_commits_total", null, indexCommits.requests());
        p.family("lakestream_index_commit_errors_total", "counter", "Index commits that failed");
        p.sample("lakestream_index_commit_errors_total", null, indexCommits.errors());
        p.family("lakestream_index_commit_duration_seconds", "histogram", "Latency of index commits");
        p.histogram(
                "lakestream_index_commit_duration_seconds",
                null,
                indexCommits.latency().snapshot());

        p.family("lakestream_cache_hits_total", "counter", "Reads served from the WAL object cache");
        p.sample("lakestream_cache_hits_total", null, cache.hits());
        p.family("lakestream_cache_misses_total", "counter", "Reads that did not find their object in the cache");
        p.sample("lakestream_cache_misses_total", null, cache.misses());
        p.family("lakestream_cache_hit_ratio", "gauge", "Cache hits over lookups since start (0 before any)");
        p.sample("lakestream_cache_hit_ratio", null, cacheHitRatio());
        p.family("lakestream_cache_bytes", "gauge", "Bytes of WAL objects held in the cache");
        p.sample("lakestream_cache_bytes", null, cache.bytes());
        p.family("lakestream_cache_max_bytes", "gauge", "The cache's budget (lakestream.reader.cacheSize)");
        p.sample("lakestream_cache_max_bytes", null, cacheMaxBytes);

        p.family(
                "lakestream_writer_pending_bytes",
                "gauge",
                "Append payload bytes accepted by the WAL writer but not yet stored in an object");
        p.sample("lakestream_writer_pending_bytes", null, pendingAppendBytes());

        p.family("lakestream_gc_lease_held", "gauge", "1 while this process holds the GC lease (is the collector)");
        p.sample("lakestream_gc_lease_held", null, gc.leaseHeld() ? 1 : 0);
        p.family("lakestream_gc_runs_total", "counter", "GC runs this process made, failed ones included");
        p.sample("lakestream_gc_runs_total", null, gc.runs());
        p.family("lakestream_gc_run_errors_total", "counter", "GC runs that failed or lost the lease");
        p.sample("lakestream_gc_run_errors_total", null, gc.failedRuns());
        p.family("lakestream_gc_deleted_objects_total", "counter", "WAL objects deleted by GC");
        p.sample("lakestream_gc_deleted_objects_total", null, gc.deletedObjects());
        p.family("lakestream_gc_deleted_bytes_total", "counter", "Bytes of the WAL objects deleted by GC");
        p.sample("lakestream_gc_deleted_bytes_total", null, gc.deletedBytes());
        p.family(
                "lakestream_gc_dead_streams_cleared_total",
                "counter",
                "Deleted streams whose leftover index, trim marker and cursors GC removed");
        p.sample("lakestream_gc_dead_streams_cleared_total", null, gc.deadStreamsCleared());
        p.family("lakestream_gc_last_run_timestamp_seconds", "gauge", "When the last GC run ended (0: never)");
        p.sample(
                "lakestream_gc_last_run_timestamp_seconds",
                null,
                seconds(gc.lastRunEnd().orElse(null)));
        p.family(
                "lakestream_gc_last_success_timestamp_seconds",
                "gauge",
                "When the last successful GC run ended (0: never)");
        p.sample(
                "lakestream_gc_last_success_timestamp_seconds",
                null,
                seconds(gc.lastSuccess().orElse(null)));
        p.family("lakestream_gc_last_run_duration_seconds", "gauge", "How long the last GC run took");
        p.sample(
                "lakestream_gc_last_run_duration_seconds",
                null,
                gc.lastRunDuration().toNanos() / 1e9);
        writeCompaction(p);
    }

    private void writeCompaction(PrometheusText p) throws IOException {
        p.family("lakestream_compaction_active", "gauge", "1 while this process compacts streams into segments");
        p.sample("lakestream_compaction_active", null, compaction.active() ? 1 : 0);
        p.family("lakestream_compaction_passes_total", "counter", "Passes of the compactor over its streams");
        p.sample("lakestream_compaction_passes_total", null, compaction.passes());
        p.family("lakestream_compaction_segments_written_total", "counter", "Segments written and switched to");
        p.sample("lakestream_compaction_segments_written_total", null, compaction.segments());
        p.family(
                "lakestream_compaction_merges_total",
                "counter",
                "Merges of small adjacent segments into one (each of four segments, a tier at a time)");
        p.sample("lakestream_compaction_merges_total", null, compaction.merges());
        p.family(
                "lakestream_compaction_tail_rewrites_total",
                "counter",
                "Compacted records rewritten as their tail after a trim passed half of them");
        p.sample("lakestream_compaction_tail_rewrites_total", null, compaction.tailRewrites());
        p.family("lakestream_compaction_merged_segments_total", "counter", "Small segments merged away");
        p.sample("lakestream_compaction_merged_segments_total", null, compaction.mergedSegments());
        p.family("lakestream_compaction_entries_total", "counter", "Entries compacted into segments");
        p.sample("lakestream_compaction_entries_total", null, compaction.entries());
        p.family("lakestream_compaction_payload_bytes_total", "counter", "Entry payload bytes compacted into segments");
        p.sample("lakestream_compaction_payload_bytes_total", null, compaction.payloadBytes());
        p.family("lakestream_compaction_segment_bytes_total", "counter", "Bytes of the segments written, merges' too");
        p.sample("lakestream_compaction_segment_bytes_total", null, compaction.segmentBytes());
        p.family(
                "lakestream_compaction_leftovers_deleted_total",
                "counter",
                "WAL records deleted below a compacted record, finishing a switch that had stopped");
        p.sample("lakestream_compaction_leftovers_deleted_total", null, compaction.leftoversDeleted());
        p.family("lakestream_compaction_failures_total", "counter", "Compaction steps that failed (retried next pass)");
        p.sample("lakestream_compaction_failures_total", null, compaction.failures());
        Map<Long, CompactionMetrics.Lag> lag = new java.util.TreeMap<>(compaction.lag());
        p.family(
                "lakestream_compaction_lag_seconds",
                "gauge",
                "Age of the stream's oldest WAL record, i.e. of its oldest data not compacted yet");
        for (Map.Entry<Long, CompactionMetrics.Lag> e : lag.entrySet()) {
            p.sample(
                    "lakestream_compaction_lag_seconds",
                    PrometheusText.label("stream_id", Long.toString(e.getKey())),
                    e.getValue().millis() / 1000.0);
        }
        p.family(
                "lakestream_compaction_lag_bytes",
                "gauge",
                "Payload bytes of the stream's WAL records not compacted yet (as far as one scan of 1000 records reaches)");
        for (Map.Entry<Long, CompactionMetrics.Lag> e : lag.entrySet()) {
            p.sample(
                    "lakestream_compaction_lag_bytes",
                    PrometheusText.label("stream_id", Long.toString(e.getKey())),
                    e.getValue().bytes());
        }
    }

    private static String op(ObjectStoreOp op) {
        return PrometheusText.label("op", op.label());
    }

    private static double seconds(Instant t) {
        return t == null ? 0 : t.toEpochMilli() / 1000.0;
    }
}
