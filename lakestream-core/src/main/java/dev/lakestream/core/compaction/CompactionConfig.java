package dev.lakestream.core.compaction;

import dev.lakestream.core.config.ConfigChecks;
import dev.lakestream.core.config.ConfigException;
import dev.lakestream.core.config.ConfigReader;
import java.time.Duration;
import java.util.List;

/**
 * Compaction of streams' WAL records into segments: the service ({@link CompactionService}) and each pass over a
 * stream ({@link StreamCompactor}).
 *
 * @param enabled whether {@link CompactionService#start} compacts in this process at all
 *     ({@code lakestream.compaction.enabled}, default true); a process without the configured segment format
 *     installed compacts nothing and says so once
 * @param delay how old a WAL record must be (its commit time) before it is compacted: the WAL holds about this much of
 *     each stream ({@code lakestream.compaction.delay}, default 5 min)
 * @param interval the pause between two passes over the streams; a stream that writes little gets at most one
 *     segment per pass ({@code lakestream.compaction.interval}, default 5 min)
 * @param segmentSize payload bytes a segment is cut at; a range's last record may take it past that
 *     ({@code lakestream.compaction.segmentSize}, default 128 MiB)
 * @param maxBytesPerSecond payload bytes compacted per second at most, over all streams of the process
 *     ({@code lakestream.compaction.maxBytesPerSecond}, default 64 MiB)
 * @param maxPutsPerSecond segment PUTs per second at most ({@code lakestream.compaction.maxPutsPerSecond}, default 10)
 * @param format the segment format written, by name ({@code lakestream.compaction.format}, default {@code parquet})
 */
public record CompactionConfig(
        boolean enabled,
        Duration delay,
        Duration interval,
        long segmentSize,
        long maxBytesPerSecond,
        int maxPutsPerSecond,
        String format) {

    public static final String ENABLED = "lakestream.compaction.enabled";
    public static final String DELAY = "lakestream.compaction.delay";
    public static final String INTERVAL = "lakestream.compaction.interval";
    public static final String SEGMENT_SIZE = "lakestream.compaction.segmentSize";
    public static final String MAX_BYTES_PER_SECOND = "lakestream.compaction.maxBytesPerSecond";
    public static final String MAX_PUTS_PER_SECOND = "lakestream.compaction.maxPutsPerSecond";
    public static final String FORMAT = "lakestream.compaction.format";

    /** Every key this config reads (registered by {@link CompactionConfigKeys}). */
    public static final List<String> KEYS =
            List.of(ENABLED, DELAY, INTERVAL, SEGMENT_SIZE, MAX_BYTES_PER_SECOND, MAX_PUTS_PER_SECOND, FORMAT);

    public static final CompactionConfig DEFAULT = new CompactionConfig(
            true, Duration.ofMinutes(5), Duration.ofMinutes(5), 128L << 20, 64L << 20, 10, "parquet");

    public CompactionConfig {
        ConfigChecks.requireNotNegative(DELAY, delay);
        ConfigChecks.requirePositive(INTERVAL, interval);
        if (segmentSize < 1) {
            throw new ConfigException(SEGMENT_SIZE, Long.toString(segmentSize), "must be at least 1 byte");
        }
        if (maxBytesPerSecond < 1) {
            throw new ConfigException(MAX_BYTES_PER_SECOND, Long.toString(maxBytesPerSecond), "must be at least 1");
        }
        if (maxPutsPerSecond < 1) {
            throw new ConfigException(MAX_PUTS_PER_SECOND, Integer.toString(maxPutsPerSecond), "must be at least 1");
        }
        if (format == null || format.isBlank()) {
            throw new ConfigException(FORMAT, String.valueOf(format), "must name a segment format, e.g. parquet");
        }
    }

    public static CompactionConfig fromProperties(ConfigReader r) {
        return new CompactionConfig(
                r.bool(ENABLED, DEFAULT.enabled),
                r.duration(DELAY, DEFAULT.delay),
                r.duration(INTERVAL, DEFAULT.interval),
                r.bytes(SEGMENT_SIZE, DEFAULT.segmentSize),
                r.bytes(MAX_BYTES_PER_SECOND, DEFAULT.maxBytesPerSecond),
                r.integer(MAX_PUTS_PER_SECOND, DEFAULT.maxPutsPerSecond),
                r.string(FORMAT, DEFAULT.format));
    }

    public CompactionConfig withDelay(Duration d) {
        return new CompactionConfig(enabled, d, interval, segmentSize, maxBytesPerSecond, maxPutsPerSecond, format);
    }

    public CompactionConfig withInterval(Duration d) {
        return new CompactionConfig(enabled, delay, d, segmentSize, maxBytesPerSecond, maxPutsPerSecond, format);
    }

    public CompactionConfig withSegmentSize(long bytes) {
        return new CompactionConfig(enabled, delay, interval, bytes, maxBytesPerSecond, maxPutsPerSecond, format);
    }

    public CompactionConfig withFormat(String name) {
        return new CompactionConfig(enabled, delay, interval, segmentSize, maxBytesPerSecond, maxPutsPerSecond, name);
    }
}
