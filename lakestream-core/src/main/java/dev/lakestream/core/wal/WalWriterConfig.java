package dev.lakestream.core.wal;

import dev.lakestream.core.config.ConfigException;
import dev.lakestream.core.config.ConfigReader;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * How the WAL writer batches appends into objects.
 *
 * @param maxObjectBytes a batch is flushed as soon as its payloads reach this size
 *     ({@code lakestream.writer.maxObjectSize}, default 8 MiB)
 * @param flushDelay a batch is flushed at the latest this long after its first append
 *     ({@code lakestream.writer.flushDelay}, default 100 ms)
 * @param maxPendingBytes payload bytes accepted but not yet written to the object store
 *     ({@code lakestream.writer.maxPendingBytes}, default 256 MiB)
 * @param whenFull what an append does past {@code maxPendingBytes}: wait for room, or fail at once
 *     ({@code lakestream.writer.whenFull}, {@code wait} or {@code reject}, default {@code wait})
 */
public record WalWriterConfig(long maxObjectBytes, Duration flushDelay, long maxPendingBytes, WhenFull whenFull) {

    public enum WhenFull { WAIT, REJECT }

    /**
     * Every key the writer reads (registered in {@link dev.lakestream.core.config.ConfigKeys}), including the flush
     * policy's keys (flushPolicy, linger, maxPutsPerSecond).
     */
    public static final List<String> KEYS = List.of("lakestream.writer.maxObjectSize", "lakestream.writer.flushDelay",
            "lakestream.writer.maxPendingBytes", "lakestream.writer.whenFull", "lakestream.writer.flushPolicy",
            "lakestream.writer.linger", "lakestream.writer.maxPutsPerSecond");

    public static final WalWriterConfig DEFAULT =
            new WalWriterConfig(8L << 20, Duration.ofMillis(100), 256L << 20, WhenFull.WAIT);

    public WalWriterConfig {
        if (maxObjectBytes < 1) {
            throw new ConfigException("lakestream.writer.maxObjectSize", String.valueOf(maxObjectBytes), "must be positive");
        }
        if (flushDelay.isNegative() || flushDelay.isZero()) {
            throw new ConfigException("lakestream.writer.flushDelay", String.valueOf(flushDelay), "must be positive");
        }
        if (maxPendingBytes < maxObjectBytes) {
            throw new ConfigException("lakestream.writer.maxPendingBytes", String.valueOf(maxPendingBytes),
                    "must be at least lakestream.writer.maxObjectSize (" + maxObjectBytes + ")");
        }
    }

    public static WalWriterConfig fromProperties(ConfigReader r) {
        String whenFull = r.string("lakestream.writer.whenFull", "wait").toUpperCase(Locale.ROOT);
        if (!whenFull.equals("WAIT") && !whenFull.equals("REJECT")) {
            throw new ConfigException("lakestream.writer.whenFull", whenFull, "must be 'wait' or 'reject'");
        }
        return new WalWriterConfig(
                r.bytes("lakestream.writer.maxObjectSize", DEFAULT.maxObjectBytes),
                r.duration("lakestream.writer.flushDelay", DEFAULT.flushDelay),
                r.bytes("lakestream.writer.maxPendingBytes", DEFAULT.maxPendingBytes),
                WhenFull.valueOf(whenFull));
    }
}
