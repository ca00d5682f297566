package dev.lakestream.iceberg;

import dev.lakestream.core.config.ConfigException;
import dev.lakestream.core.config.ConfigReader;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * How a broker hosts materializers (keys {@code lakestream.iceberg.*}, docs/configuration.md): whether at all, the
 * default for topics no property enables or disables (the broker plugin decides per topic), on how many threads, and
 * how its tables are kept up. Kept here with the module's other keys, which {@link IcebergConfigKeys} registers.
 *
 * @param enabled whether the broker hosts materializers at all (default false)
 * @param topicsEnabledByDefault materialize topics whose namespace and topic do not set {@code lakestream.iceberg}
 *     (default false: only topics enabled by a namespace or topic property)
 * @param retainUntilMaterialized retention keeps entries of materialized topics until they are in the table
 *     (default true)
 * @param threads the pool the materializers of all topics share (default 2)
 * @param topicCheckInterval how often the host compares the topics it owns with the materializers it runs
 *     (default 2 s)
 * @param upkeep how the tables are kept up (the standalone tool reads the same keys)
 */
public record HostConfig(
        boolean enabled,
        boolean topicsEnabledByDefault,
        boolean retainUntilMaterialized,
        int threads,
        Duration topicCheckInterval,
        UpkeepConfig upkeep) {

    public static final String ENABLED = "lakestream.iceberg.enabled";
    public static final String TOPICS_ENABLED_BY_DEFAULT = "lakestream.iceberg.topicsEnabledByDefault";
    public static final String RETAIN_UNTIL_MATERIALIZED = "lakestream.iceberg.retainUntilMaterialized";
    public static final String THREADS = "lakestream.iceberg.threads";
    public static final String TOPIC_CHECK_INTERVAL = "lakestream.iceberg.topicCheckInterval";
    /**
     * Where the embedded catalog and warehouse go ({@code <dataDir>/iceberg/}) when no catalog is configured; read
     * by the host (default: the broker's data directory).
     */
    public static final String DATA_DIR = "lakestream.iceberg.dataDir";

    static final List<String> KEYS = List.of(
            ENABLED, TOPICS_ENABLED_BY_DEFAULT, RETAIN_UNTIL_MATERIALIZED, THREADS, TOPIC_CHECK_INTERVAL, DATA_DIR);

    public static final HostConfig DEFAULT =
            new HostConfig(false, false, true, 2, Duration.ofSeconds(2), UpkeepConfig.DEFAULT);

    public HostConfig {
        if (threads < 1) {
            throw new ConfigException(THREADS, Integer.toString(threads), "must be at least 1");
        }
        if (topicCheckInterval.isNegative() || topicCheckInterval.isZero()) {
            throw new ConfigException(
                    TOPIC_CHECK_INTERVAL, ConfigReader.format(topicCheckInterval), "must be positive");
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
                UpkeepConfig.fromProperties(props));
    }
}
