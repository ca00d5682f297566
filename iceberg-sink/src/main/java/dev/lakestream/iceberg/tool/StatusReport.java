package dev.lakestream.iceberg.tool;

import dev.lakestream.core.Lakestream;
import dev.lakestream.core.StreamLog;
import dev.lakestream.core.catalog.StreamInfo;
import dev.lakestream.core.log.LogEntry;
import dev.lakestream.iceberg.CommitSummary;
import dev.lakestream.iceberg.Materializers;
import dev.lakestream.iceberg.TableNames;
import dev.lakestream.iceberg.TopicRef;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * {@code lakestream-materialize status}: per selected topic partition, where its table stands (the committed offset
 * in the newest snapshot summaries), how far behind the stream it is (entries, and seconds since the oldest entry not
 * in the table was appended), and the state and last error a running materializer published in its status file.
 */
public final class StatusReport {

    /** One topic partition. {@code committedOffset} -1: nothing committed yet; state and error may be unknown. */
    public record Line(
            String topic,
            long streamId,
            String table,
            long committedOffset,
            long endOffset,
            long lagEntries,
            double lagSeconds,
            String state,
            String lastError) {}

    private StatusReport() {}

    /** Reads the log and the catalog now; state and last error come from {@code published} (may be empty). */
    public static List<Line> compute(
            Lakestream log,
            Catalog catalog,
            TopicSelection selection,
            Optional<StatusFile.Snapshot> published,
            long nowMillis) {
        Map<Long, StatusFile.Topic> byStream = new HashMap<>();
        published.ifPresent(p -> p.topics().forEach(t -> byStream.put(t.streamId(), t)));
        Materializers materializers = new Materializers(
                log,
                catalog,
                dev.lakestream.iceberg.MaterializerConfig.DEFAULT,
                dev.lakestream.iceberg.DeadLetters.log(),
                Runnable::run);
        Map<TableIdentifier, Map<Long, Long>> offsetsByTable = new HashMap<>();
        List<Line> lines = new ArrayList<>();
        for (StreamInfo s : StandaloneMaterializer.selectedStreams(materializers, selection)) {
            TopicRef topic = TopicRef.fromManagedLedgerName(s.name());
            TableIdentifier id = TableNames.of(topic);
            Map<Long, Long> offsets = offsetsByTable.computeIfAbsent(id, i -> {
                if (!catalog.tableExists(i)) {
                    return Map.of();
                }
                Table t = catalog.loadTable(i);
                return CommitSummary.committedOffsets(t);
            });
            StreamLog stream = log.stream(s);
            long end = stream.endOffset().join();
            Long committed = offsets.get(s.id());
            long from = committed != null ? committed : stream.startOffset().join();
            long lag = Math.max(0, end - from);
            double lagSeconds = 0;
            if (lag > 0) {
                List<LogEntry> first = stream.read(from, 1, 1).join();
                try {
                    if (!first.isEmpty()) {
                        lagSeconds = Math.max(0, nowMillis - first.get(0).timestamp()) / 1000.0;
                    }
                } finally {
                    first.forEach(e -> e.payload().release());
                }
            }
            StatusFile.Topic p = byStream.get(s.id());
            String state = p == null
                    ? (published.isPresent() ? "NOT_RUNNING" : "UNKNOWN")
                    : (published.get().running() ? p.state().name() : "STOPPED");
            lines.add(new Line(
                    topic.toString(),
                    s.id(),
                    id.toString(),
                    committed == null ? -1 : committed,
                    end,
                    lag,
                    lagSeconds,
                    state,
                    p == null ? null : p.lastError()));
        }
        return lines;
    }

    /** What a running materializer published, when the log cannot be opened (an embedded store it holds). */
    public static List<Line> fromPublished(StatusFile.Snapshot published, long nowMillis) {
        List<Line> lines = new ArrayList<>();
        for (StatusFile.Topic t : published.topics()) {
            lines.add(new Line(
                    t.topic(),
                    t.streamId(),
                    t.table(),
                    t.committedOffset(),
                    t.streamEndOffset(),
                    t.lagEntries(),
                    t.lagMillis() / 1000.0,
                    published.running() ? t.state().name() : "STOPPED",
                    t.lastError()));
        }
        return lines;
    }

    public static void print(List<Line> lines, PrintStream out) {
        out.printf(
                "%-50s %8s %-40s %12s %12s %10s %9s %-11s %s%n",
                "TOPIC", "STREAM", "TABLE", "COMMITTED", "END", "LAG", "LAG_S", "STATE", "LAST_ERROR");
        for (Line l : lines) {
            out.printf(
                    "%-50s %8d %-40s %12s %12d %10d %9.1f %-11s %s%n",
                    l.topic(),
                    l.streamId(),
                    l.table(),
                    l.committedOffset() < 0 ? "-" : Long.toString(l.committedOffset()),
                    l.endOffset(),
                    l.lagEntries(),
                    l.lagSeconds(),
                    l.state(),
                    l.lastError() == null ? "" : l.lastError());
        }
    }
}
