package dev.lakestream.iceberg.tool;

import dev.lakestream.core.config.ConfigKeySet;
import java.util.List;

/**
 * The standalone materializer's own {@code lakestream.materialize.*} keys ({@link ToolConfig}), registered with the
 * core's {@link dev.lakestream.core.config.ConfigKeys} so that its configuration file is checked strictly.
 */
public final class ToolConfigKeys implements ConfigKeySet {

    static final List<String> KEYS = List.of(
            TopicSelection.KEY,
            ToolConfig.DISCOVERY_INTERVAL,
            ToolConfig.STATUS_FILE,
            ToolConfig.DATA_DIR,
            ToolConfig.METRICS_ADDRESS,
            ToolConfig.METRICS_PORT);

    @Override
    public List<String> keys() {
        return KEYS;
    }

    @Override
    public List<String> prefixes() {
        return List.of();
    }
}
