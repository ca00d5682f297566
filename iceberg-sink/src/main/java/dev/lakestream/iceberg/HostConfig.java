package dev.lakestream.iceberg;

import dev.lakestream.core.config.ConfigException;
import dev.lakestream.core.config.ConfigReader;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * How a host (the broker plugin) runs materializers: which topics, on how many threads, how often it upkeeps the
 * tables (keys {@code lakestream.iceberg.*}, docs/configuration.md).
 *
 * @param enabled whether the broker hosts materializers at all (default false)
 * @param topicsEnabledByDefault materialize topics whose namespace and topic do not set {@code lakestream.iceberg}
 *     (default false: only topics enabled by a namespace or topic property)
 * @param retainUntilMaterialized retention keeps entries of materialized topics until they are in the table
 *     (default true)
 * @param threads the pool the materializers of all topics share (default 2)
 * @param topicCheckInterval how often the host compares the topics it owns with the materializers it runs
 *     (default 2 s)
 * @param maintenanceInterval how often each table is compacted and its snapshots expired (default 10 min; 0 = never)
 * @param compactionMinFiles a partition is compacted once it has this many small files (default 8)
 * @param snapshotMaxAge snapshots older than this are expired (default 1 h)
 * @param snapshotsRetained the newest snapshots kept whatever their age (default 10)
 * @param orphanFileMinAge at upkeep, files in a table's data directory no snapshot references are deleted once
 *     older than this (default 1 d; 0 = never; at least 1 min, far above any commit's duration)
 */
public record HostConfig(
        boolean enabled,
        boolean topicsEnabledByDefault,
        boolean retainUntilMaterialized,
        int threads,
        Duration topicCheckInterval,
        Duration maintenanceInterval,
        int compactionMinFiles,
        Duration snapshotMaxAge,
        int snapshotsRetained,
        Duration orphanFileMinAge) {

    public static final String ENABLED = "lakestream.iceberg.enabled";
    public static final String TOPICS_ENABLED_BY_DEFAULT = "lakestream.iceberg.topicsEnabledByDefault";
    public static final String RETAIN_UNTIL_MATERIALIZED = "lakestream.iceberg.retainUntilMaterialized";
    public static final String THREADS = "lakestream.iceberg.threads";
    public static final String TOPIC_CHECK_INTERVAL = "lakestream.iceberg.topicCheckInterval";
    public static final String MAINTENANCE_INTERVAL = "lakestream.iceberg.maintenanceInterval";
    public static final String COMPACTION_MIN_FILES = "lakestream.iceberg.compactionMinFiles";
    public static final String SNAPSHOT_MAX_AGE = "lakestream.iceberg.snapshotMaxAge";
    public static final String SNAPSHOTS_RETAINED = "lakestream.iceberg.snapshotsRetained";
    public static final String ORPHAN_FILE_MIN_AGE = "lakestream.iceberg.orphanFileMinAge";
    /**
     * Where the embedded catalog and warehouse go ({@code <dataDir>/iceberg/}) when no catalog is configured; read
     * by the host (default: the broker's data directory).
     */
    public static final String DATA_DIR = "lakestream.iceberg.dataDir";

    static final List<String> KEYS = List.of(
            ENABLED,
            TOPICS_ENABLED_BY_DEFAULT,
            RETAIN_UNTIL_MATERIALIZED,
            THREADS,
            TOPIC_CHECK_INTERVAL,
            MAINTENANCE_INTERVAL,
            COMPACTION_MIN_FILES,
            SNAPSHOT_MAX_AGE,
            SNAPSHOTS_RETAINED,
            ORPHAN_FILE_MIN_AGE,
            DATA_DIR);

    /**
     * The namespace or topic property that enables ({@code enabled}) or disables ({@code disabled}) materialization
     * of a topic: {@code pulsar-admin namespaces set-property NS -k lakestream.iceberg -v enabled}.
     */
    public static final String PROPERTY = "lakestream.iceberg";

    public static final HostConfig DEFAULT = new HostConfig(
            false,
            false,
            true,
            2,
            Duration.ofSeconds(2),
            Duration.ofMinutes(10),
            8,
            Duration.ofHours(1),
            10,
            Duration.ofDays(1));

    public HostConfig {
        if (threads < 1) {
            throw new ConfigException(THREADS, Integer.toString(threads), "must be at least 1");
        }
        if (topicCheckInterval.isNegative() || topicCheckInterval.isZero()) {
            throw new ConfigException(
                    TOPIC_CHECK_INTERVAL, ConfigReader.format(topicCheckInterval), "must be positive");
        }
        if (maintenanceInterval.isNegative()) {
            throw new ConfigException(
                    MAINTENANCE_INTERVAL, ConfigReader.format(maintenanceInterval), "must be 0 (never) or positive");
        }
        if (compactionMinFiles < 2) {
            throw new ConfigException(COMPACTION_MIN_FILES, Integer.toString(compactionMinFiles), "must be at least 2");
        }
        if (snapshotMaxAge.isNegative()) {
            throw new ConfigException(SNAPSHOT_MAX_AGE, ConfigReader.format(snapshotMaxAge), "must not be negative");
        }
        if (snapshotsRetained < 1) {
            throw new ConfigException(SNAPSHOTS_RETAINED, Integer.toString(snapshotsRetained), "must be at least 1");
        }
        if (orphanFileMinAge.isNegative() || (!orphanFileMinAge.isZero() && orphanFileMinAge.toMinutes() < 1)) {
            // Younger files may belong to a commit in progress.
            throw new ConfigException(
                    ORPHAN_FILE_MIN_AGE,
                    ConfigReader.format(orphanFileMinAge),
                    "must be 0 (never remove orphan files) or at least 1m");
        }
    }

    public static HostConfig fromProperties(Map<String, String> props) {
        ConfigReader p = new ConfigReader(props);
        HostConfig d = DEFAULT;
        return new HostConfig(
                p.bool(ENABLED, d.enabled()),
                p.bool(TOPICS_ENABLED_BY_DEFAULT, d.topicsEnabledByDefault()),
                p.bool(RETAIN_UNTIL_MATERIALIZED, d.retainUntilMaterialized()),
                p.integer(THREADS, d.threads()),
                p.duration(TOPIC_CHECK_INTERVAL, d.topicCheckInterval()),
                p.duration(MAINTENANCE_INTERVAL, d.maintenanceInterval()),
                p.integer(COMPACTION_MIN_FILES, d.compactionMinFiles()),
                p.duration(SNAPSHOT_MAX_AGE, d.snapshotMaxAge()),
                p.integer(SNAPSHOTS_RETAINED, d.snapshotsRetained()),
                p.duration(ORPHAN_FILE_MIN_AGE, d.orphanFileMinAge()));
    }

    /**
     * Whether a topic is materialized, from its topic property, else its namespace property, else the default.
     *
     * @param topicProperty the topic's {@code lakestream.iceberg} property, or null
     * @param namespaceProperty the namespace's, or null
     * @throws IllegalArgumentException naming the property when a value is neither {@code enabled} nor
     *     {@code disabled}
     */
    public boolean materializes(String topicProperty, String namespaceProperty, String where) {
        Boolean topic = parse(topicProperty, "topic property", where);
        if (topic != null) {
            return topic;
        }
        Boolean ns = parse(namespaceProperty, "namespace property", where);
        return ns != null ? ns : topicsEnabledByDefault;
    }

    private static Boolean parse(String value, String what, String where) {
        if (value == null) {
            return null;
        }
        return switch (value.trim().toLowerCase(java.util.Locale.ROOT)) {
            case "enabled", "true" -> true;
            case "disabled", "false" -> false;
            default ->
                throw new IllegalArgumentException("the " + what + " " + PROPERTY + " of " + where + " is '" + value
                        + "': must be 'enabled' or 'disabled'");
        };
    }
}
