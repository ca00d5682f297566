package dev.lakestream.core.gc;

import dev.lakestream.core.config.ConfigChecks;
import dev.lakestream.core.config.ConfigException;
import dev.lakestream.core.config.ConfigReader;
import java.time.Duration;
import java.util.List;

/**
 * Garbage collection of WAL objects: the service ({@link GcService}) and the collector ({@link WalGarbageCollector}).
 *
 * @param enabled whether {@link GcService#start} runs the collector in this process at all
 *     ({@code lakestream.gc.enabled}, default true)
 * @param interval the pause between the end of one run and the start of the next, and how often a process without
 *     the lease tries to take it ({@code lakestream.gc.interval}, default 5 min)
 * @param maxDeletesPerSecond at most this many objects deleted per second, so a large backlog does not hammer the
 *     object store ({@code lakestream.gc.maxDeletesPerSecond}, default 1000)
 * @param safetyMargin how much older than the oldest object still referenced an object must be before it
 *     is deleted; covers clock skew between writers and the time between an object's PUT and its index
 *     commit ({@code lakestream.gc.safetyMargin}, default 1 h)
 * @param orphanDelay how old an object that no index record references must be before it is deleted as an
 *     orphan (a writer crashed between PUT and commit, or a commit failed) ({@code lakestream.gc.orphanDelay},
 *     default 1 h); must exceed the longest a commit can take after its PUT
 * @param commitWindow how far after an object's name time its index commit may be, when looking for the
 *     records that reference it ({@code lakestream.gc.commitWindow}, default 10 min)
 */
public record GcConfig(
        boolean enabled,
        Duration interval,
        int maxDeletesPerSecond,
        Duration safetyMargin,
        Duration orphanDelay,
        Duration commitWindow) {

    public static final String ENABLED = "lakestream.gc.enabled";
    public static final String INTERVAL = "lakestream.gc.interval";
    public static final String MAX_DELETES_PER_SECOND = "lakestream.gc.maxDeletesPerSecond";
    public static final String SAFETY_MARGIN = "lakestream.gc.safetyMargin";
    public static final String ORPHAN_DELAY = "lakestream.gc.orphanDelay";
    public static final String COMMIT_WINDOW = "lakestream.gc.commitWindow";

    /** Every key this config reads (registered by {@link GcConfigKeys}). */
    public static final List<String> KEYS =
            List.of(ENABLED, INTERVAL, MAX_DELETES_PER_SECOND, SAFETY_MARGIN, ORPHAN_DELAY, COMMIT_WINDOW);

    public static final GcConfig DEFAULT = new GcConfig(
            true, Duration.ofMinutes(5), 1000, Duration.ofHours(1), Duration.ofHours(1), Duration.ofMinutes(10));

    public GcConfig {
        ConfigChecks.requirePositive(INTERVAL, interval);
        if (maxDeletesPerSecond < 1) {
            throw new ConfigException(
                    MAX_DELETES_PER_SECOND, Integer.toString(maxDeletesPerSecond), "must be at least 1");
        }
        ConfigChecks.requireNotNegative(SAFETY_MARGIN, safetyMargin);
        ConfigChecks.requireNotNegative(COMMIT_WINDOW, commitWindow);
        if (orphanDelay.compareTo(commitWindow) < 0) {
            throw new ConfigException(
                    ORPHAN_DELAY,
                    ConfigReader.format(orphanDelay),
                    "must be at least lakestream.gc.commitWindow (" + ConfigReader.format(commitWindow) + ")");
        }
    }

    public static GcConfig fromProperties(ConfigReader r) {
        return new GcConfig(
                r.bool(ENABLED, DEFAULT.enabled),
                r.duration(INTERVAL, DEFAULT.interval),
                r.integer(MAX_DELETES_PER_SECOND, DEFAULT.maxDeletesPerSecond),
                r.duration(SAFETY_MARGIN, DEFAULT.safetyMargin),
                r.duration(ORPHAN_DELAY, DEFAULT.orphanDelay),
                r.duration(COMMIT_WINDOW, DEFAULT.commitWindow));
    }

    /** Objects per delete request: about a tenth of a second's worth, so pacing is smooth (1..1000, S3's limit). */
    public int deleteBatchSize() {
        return Math.max(1, Math.min(1000, maxDeletesPerSecond / 10));
    }

    public GcConfig withInterval(Duration d) {
        return new GcConfig(enabled, d, maxDeletesPerSecond, safetyMargin, orphanDelay, commitWindow);
    }

    public GcConfig withMaxDeletesPerSecond(int n) {
        return new GcConfig(enabled, interval, n, safetyMargin, orphanDelay, commitWindow);
    }

    public GcConfig withSafetyMargin(Duration d) {
        return new GcConfig(enabled, interval, maxDeletesPerSecond, d, orphanDelay, commitWindow);
    }
}
