package dev.lakestream.iceberg;

import dev.lakestream.core.config.ConfigException;
import dev.lakestream.core.config.ConfigReader;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * How the tables are kept up ({@link TableMaintenance#upkeep}), by either host: the brokers and the standalone tool read
 * the same keys, so one file configures both alike (docs/configuration.md).
 *
 * @param maintenanceInterval how often each table is compacted and its snapshots expired (default 10 min; 0 = never)
 * @param compactionMinFiles a partition is compacted once it has this many small files (default 8)
 * @param snapshotMaxAge snapshots older than this are expired (default 1 h)
 * @param snapshotsRetained the newest snapshots kept whatever their age (default 10)
 * @param orphanFileMinAge at upkeep, files in a table's data directory no snapshot references are deleted once
 *     older than this (default 1 d; 0 = never; at least 1 min, far above any commit's duration)
 */
public record UpkeepConfig(
        Duration maintenanceInterval,
        int compactionMinFiles,
        Duration snapshotMaxAge,
        int snapshotsRetained,
        Duration orphanFileMinAge) {

    public static final String MAINTENANCE_INTERVAL = "lakestream.iceberg.maintenanceInterval";
    public static final String COMPACTION_MIN_FILES = "lakestream.iceberg.compactionMinFiles";
    public static final String SNAPSHOT_MAX_AGE = "lakestream.iceberg.snapshotMaxAge";
    public static final String SNAPSHOTS_RETAINED = "lakestream.iceberg.snapshotsRetained";
    public static final String ORPHAN_FILE_MIN_AGE = "lakestream.iceberg.orphanFileMinAge";

    static final List<String> KEYS = List.of(
            MAINTENANCE_INTERVAL, COMPACTION_MIN_FILES, SNAPSHOT_MAX_AGE, SNAPSHOTS_RETAINED, ORPHAN_FILE_MIN_AGE);

    public static final UpkeepConfig DEFAULT =
            new UpkeepConfig(Duration.ofMinutes(10), 8, Duration.ofHours(1), 10, Duration.ofDays(1));

    public UpkeepConfig {
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

    public static UpkeepConfig fromProperties(Map<String, String> props) {
        ConfigReader p = new ConfigReader(props);
        UpkeepConfig d = DEFAULT;
        return new UpkeepConfig(
                p.duration(MAINTENANCE_INTERVAL, d.maintenanceInterval()),
                p.integer(COMPACTION_MIN_FILES, d.compactionMinFiles()),
                p.duration(SNAPSHOT_MAX_AGE, d.snapshotMaxAge()),
                p.integer(SNAPSHOTS_RETAINED, d.snapshotsRetained()),
                p.duration(ORPHAN_FILE_MIN_AGE, d.orphanFileMinAge()));
    }
}
