package dev.lakestream.iceberg;

import dev.lakestream.core.config.ConfigException;
import dev.lakestream.core.config.ConfigReader;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How a topic is materialized (keys {@code lakestream.iceberg.*}, docs/configuration.md).
 *
 * @param commitInterval how often written rows are committed (the freshness bound), default 10 s
 * @param targetFileSizeBytes data files roll at this size, default 128 MiB
 * @param pollInterval how often a caught-up materializer looks for new entries, default 1 s
 * @param readEntries entries per read from the stream, default 1000
 * @param readBytes about this many bytes per read from the stream, default 8 MiB
 * @param partitionByDay partition new tables by day of publish time, default true
 * @param tableProperties properties of new tables (keys {@code lakestream.iceberg.table.property.<name>})
 * @param maxBufferedBytes the bound on the bytes of stream entries read and not yet committed by all materializers
 *     of one process ({@link MemoryBudget}), default 256 MiB; at least {@code readBytes}
 * @param readTimeout how long a step waits for a read of the stream (or for its end) before it fails and the
 *     materializer starts again from the table's offsets, default 5 min; a read has its own store timeouts and
 *     retries well below that, so this only ends a wait that would otherwise never end
 */
public record MaterializerConfig(
        Duration commitInterval,
        long targetFileSizeBytes,
        Duration pollInterval,
        int readEntries,
        long readBytes,
        boolean partitionByDay,
        Map<String, String> tableProperties,
        long maxBufferedBytes,
        Duration readTimeout) {

    public static final MaterializerConfig DEFAULT = new MaterializerConfig(
            Duration.ofSeconds(10),
            128L * 1024 * 1024,
            Duration.ofSeconds(1),
            1000,
            8L * 1024 * 1024,
            true,
            Map.of(),
            256L * 1024 * 1024,
            Duration.ofMinutes(5));

    private static final String TABLE_PROPERTY_PREFIX = "lakestream.iceberg.table.property.";

    public MaterializerConfig {
        if (commitInterval.isNegative() || commitInterval.isZero()) {
            throw new ConfigException(
                    "lakestream.iceberg.commitInterval", String.valueOf(commitInterval), "must be positive");
        }
        if (targetFileSizeBytes < 1024) {
            throw new ConfigException(
                    "lakestream.iceberg.targetFileSize", String.valueOf(targetFileSizeBytes), "must be at least 1KiB");
        }
        if (pollInterval.isNegative() || pollInterval.isZero()) {
            throw new ConfigException(
                    "lakestream.iceberg.pollInterval", String.valueOf(pollInterval), "must be positive");
        }
        if (readEntries < 1 || readBytes < 1) {
            throw new ConfigException(
                    readEntries < 1 ? "lakestream.iceberg.readEntries" : "lakestream.iceberg.readBytes",
                    String.valueOf(readEntries < 1 ? readEntries : readBytes),
                    "must be positive");
        }
        if (maxBufferedBytes < readBytes) {
            throw new ConfigException(
                    "lakestream.iceberg.maxBufferedBytes",
                    String.valueOf(maxBufferedBytes),
                    "must be at least lakestream.iceberg.readBytes (" + readBytes + "): a read must fit");
        }
        if (readTimeout.isNegative() || readTimeout.isZero()) {
            throw new ConfigException(
                    "lakestream.iceberg.readTimeout", String.valueOf(readTimeout), "must be positive");
        }
        tableProperties = Map.copyOf(tableProperties);
    }

    public static MaterializerConfig fromProperties(Map<String, String> props) {
        ConfigReader p = new ConfigReader(props);
        Map<String, String> table = new LinkedHashMap<>();
        props.forEach((k, v) -> {
            if (k.startsWith(TABLE_PROPERTY_PREFIX)) {
                table.put(k.substring(TABLE_PROPERTY_PREFIX.length()), v);
            }
        });
        MaterializerConfig d = DEFAULT;
        return new MaterializerConfig(
                p.duration("lakestream.iceberg.commitInterval", d.commitInterval()),
                p.bytes("lakestream.iceberg.targetFileSize", d.targetFileSizeBytes()),
                p.duration("lakestream.iceberg.pollInterval", d.pollInterval()),
                p.integer("lakestream.iceberg.readEntries", d.readEntries()),
                p.bytes("lakestream.iceberg.readBytes", d.readBytes()),
                p.bool("lakestream.iceberg.partitionByDay", d.partitionByDay()),
                table,
                p.bytes("lakestream.iceberg.maxBufferedBytes", d.maxBufferedBytes()),
                p.duration("lakestream.iceberg.readTimeout", d.readTimeout()));
    }

    public MaterializerConfig withCommitInterval(Duration d) {
        return new MaterializerConfig(
                d,
                targetFileSizeBytes,
                pollInterval,
                readEntries,
                readBytes,
                partitionByDay,
                tableProperties,
                maxBufferedBytes,
                readTimeout);
    }

    public MaterializerConfig withTargetFileSize(long bytes) {
        return new MaterializerConfig(
                commitInterval,
                bytes,
                pollInterval,
                readEntries,
                readBytes,
                partitionByDay,
                tableProperties,
                maxBufferedBytes,
                readTimeout);
    }

    public MaterializerConfig withRead(int entries, long bytes) {
        return new MaterializerConfig(
                commitInterval,
                targetFileSizeBytes,
                pollInterval,
                entries,
                bytes,
                partitionByDay,
                tableProperties,
                Math.max(maxBufferedBytes, bytes),
                readTimeout);
    }

    public MaterializerConfig withMaxBufferedBytes(long bytes) {
        return new MaterializerConfig(
                commitInterval,
                targetFileSizeBytes,
                pollInterval,
                readEntries,
                readBytes,
                partitionByDay,
                tableProperties,
                bytes,
                readTimeout);
    }
}
