package dev.lakestream.handler.iceberg;

import dev.lakestream.iceberg.MaterializerMetrics;
import dev.lakestream.iceberg.MemoryBudget;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The {@code lakestream_iceberg_*} series of the broker's {@code /metrics}: one sample per topic partition this broker
 * materializes (labels {@code topic}, {@code table}, plus the broker's common labels) and the memory budget, written
 * by {@link MaterializerMetrics} as the standalone tool writes them. Listed in docs/iceberg.md.
 */
public final class IcebergMetrics {

    private final Supplier<List<HostedTopic>> topics;
    private final MemoryBudget budget;
    private final Clock clock;

    IcebergMetrics(Supplier<List<HostedTopic>> topics, MemoryBudget budget, Clock clock) {
        this.topics = topics;
        this.budget = budget;
        this.clock = clock;
    }

    /** Appends every series in the Prometheus text format, each sample with {@code commonLabels} too. */
    public void writePrometheus(StringBuilder out, Map<String, String> commonLabels) {
        List<MaterializerMetrics.Topic> all = topics.get().stream()
                .map(h -> new MaterializerMetrics.Topic(h.topicName, h.table(), h.status()))
                .toList();
        MaterializerMetrics.writePrometheus(out, commonLabels, all, budget, clock.millis());
    }
}
