package dev.lakestream.core.wal;

import dev.lakestream.core.config.ConfigException;
import dev.lakestream.core.config.ConfigReader;
import java.time.Duration;
import java.util.List;

/**
 * How the WAL writer batches appends into objects.
 *
 * @param maxObjectBytes a batch is flushed as soon as its payloads reach this size
 *     ({@code lakestream.writer.maxObjectSize}, default 8 MiB)
 * @param flushDelay a batch is flushed at the latest this long after its first append: the upper bound of
 *     batching ({@code lakestream.writer.flushDelay}, default 100 ms)
 * @param maxPendingBytes payload bytes accepted but not yet written to the object store
 *     ({@code lakestream.writer.maxPendingBytes}, default 256 MiB)
 * @param whenFull what an append does past {@code maxPendingBytes}: wait for room, or fail at once
 *     ({@code lakestream.writer.whenFull}, {@code wait} or {@code reject}, default {@code wait})
 * @param flushPolicy when a batch smaller than {@code maxObjectBytes} is flushed before its deadline
 *     ({@code lakestream.writer.flushPolicy}, {@code adaptive} or {@code deadline}, default {@code adaptive})
 * @param linger with the adaptive policy, how long a batch opened while no object is being stored waits for
 *     more appends before it is flushed ({@code lakestream.writer.linger}, default 1 ms; 0 = at once)
 * @param maxPutsPerSecond with the adaptive policy, batches smaller than {@code maxObjectBytes} are flushed
 *     early at most this often (at least {@code 1 s / maxPutsPerSecond} after the previous flush), so a
 *     fast store is not sent a PUT per append ({@code lakestream.writer.maxPutsPerSecond}, default 50; 1000
 *     when read from properties naming the filesystem object store, whose writes cost nothing)
 */
public record WalWriterConfig(
        long maxObjectBytes,
        Duration flushDelay,
        long maxPendingBytes,
        WhenFull whenFull,
        FlushPolicy flushPolicy,
        Duration linger,
        int maxPutsPerSecond) {

    public enum WhenFull {
        WAIT,
        REJECT
    }

    /**
     * {@code ADAPTIVE}: group commit, a batch is flushed once no object is being stored (after {@code linger},
     * within {@code maxPutsPerSecond}), when full, or at its deadline. {@code DEADLINE}: only when full or at
     * its deadline (the behaviour before the adaptive policy; kept to compare and for cost-bound set-ups).
     */
    public enum FlushPolicy {
        ADAPTIVE,
        DEADLINE
    }

    /**
     * Why 50: S3 Standard charges USD 0.005 per 1,000 PUTs, so a writer PUTting 50 times a second all month
     * costs about USD 650; with S3's own PUT latency (20-50 ms) one PUT at a time rarely goes faster anyway,
     * so the cap mostly binds on fast stores (S3 Express, a local S3-compatible store), where it keeps the
     * added latency within 20 ms.
     */
    public static final int DEFAULT_MAX_PUTS_PER_SECOND = 50;

    /**
     * The default on the filesystem object store (the embedded mode): a write there has no request price, so the
     * cap only keeps a writer from making files faster than a disk syncs them.
     */
    public static final int FILESYSTEM_MAX_PUTS_PER_SECOND = 1000;

    public static final WalWriterConfig DEFAULT = new WalWriterConfig(
            8L << 20,
            Duration.ofMillis(100),
            256L << 20,
            WhenFull.WAIT,
            FlushPolicy.ADAPTIVE,
            Duration.ofMillis(1),
            DEFAULT_MAX_PUTS_PER_SECOND);

    /**
     * Every key the writer reads (registered by {@link WalConfigKeys}), including the flush policy's keys
     * (flushPolicy, linger, maxPutsPerSecond).
     */
    public static final List<String> KEYS = List.of(
            "lakestream.writer.maxObjectSize",
            "lakestream.writer.flushDelay",
            "lakestream.writer.maxPendingBytes",
            "lakestream.writer.whenFull",
            "lakestream.writer.flushPolicy",
            "lakestream.writer.linger",
            "lakestream.writer.maxPutsPerSecond");

    public WalWriterConfig {
        if (maxObjectBytes < 1) {
            throw new ConfigException(
                    "lakestream.writer.maxObjectSize", String.valueOf(maxObjectBytes), "must be positive");
        }
        if (flushDelay.isNegative() || flushDelay.isZero()) {
            throw new ConfigException("lakestream.writer.flushDelay", String.valueOf(flushDelay), "must be positive");
        }
        if (maxPendingBytes < maxObjectBytes) {
            throw new ConfigException(
                    "lakestream.writer.maxPendingBytes",
                    String.valueOf(maxPendingBytes),
                    "must be at least lakestream.writer.maxObjectSize (" + maxObjectBytes + ")");
        }
        if (linger.isNegative() || linger.compareTo(flushDelay) > 0) {
            throw new ConfigException(
                    "lakestream.writer.linger",
                    String.valueOf(linger),
                    "must be between 0 and lakestream.writer.flushDelay (" + flushDelay + ")");
        }
        if (maxPutsPerSecond < 1) {
            throw new ConfigException(
                    "lakestream.writer.maxPutsPerSecond", String.valueOf(maxPutsPerSecond), "must be positive");
        }
    }

    /** The adaptive policy with the default linger and PUT-rate cap. */
    public WalWriterConfig(long maxObjectBytes, Duration flushDelay, long maxPendingBytes, WhenFull whenFull) {
        this(
                maxObjectBytes,
                flushDelay,
                maxPendingBytes,
                whenFull,
                DEFAULT.flushPolicy,
                DEFAULT.linger,
                DEFAULT.maxPutsPerSecond);
    }

    public WalWriterConfig withFlushPolicy(FlushPolicy p) {
        return new WalWriterConfig(maxObjectBytes, flushDelay, maxPendingBytes, whenFull, p, linger, maxPutsPerSecond);
    }

    public WalWriterConfig withLinger(Duration l) {
        return new WalWriterConfig(
                maxObjectBytes, flushDelay, maxPendingBytes, whenFull, flushPolicy, l, maxPutsPerSecond);
    }

    public WalWriterConfig withMaxPutsPerSecond(int n) {
        return new WalWriterConfig(maxObjectBytes, flushDelay, maxPendingBytes, whenFull, flushPolicy, linger, n);
    }

    /** The least time between two early flushes, from {@code maxPutsPerSecond}. */
    public long minPutIntervalNanos() {
        return 1_000_000_000L / maxPutsPerSecond;
    }

    public static WalWriterConfig fromProperties(ConfigReader r) {
        return fromProperties(r, DEFAULT_MAX_PUTS_PER_SECOND);
    }

    /** As {@link #fromProperties(ConfigReader)}, with the default of {@code maxPutsPerSecond} given. */
    public static WalWriterConfig fromProperties(ConfigReader r, int defaultMaxPutsPerSecond) {
        return new WalWriterConfig(
                r.bytes("lakestream.writer.maxObjectSize", DEFAULT.maxObjectBytes),
                r.duration("lakestream.writer.flushDelay", DEFAULT.flushDelay),
                r.bytes("lakestream.writer.maxPendingBytes", DEFAULT.maxPendingBytes),
                r.choice("lakestream.writer.whenFull", WhenFull.WAIT),
                r.choice("lakestream.writer.flushPolicy", FlushPolicy.ADAPTIVE),
                r.duration("lakestream.writer.linger", DEFAULT.linger),
                r.integer("lakestream.writer.maxPutsPerSecond", defaultMaxPutsPerSecond));
    }
}
