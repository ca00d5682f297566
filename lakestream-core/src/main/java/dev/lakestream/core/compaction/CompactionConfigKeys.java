package dev.lakestream.core.compaction;

import dev.lakestream.core.config.ConfigKeySet;
import java.util.List;

/** Registers the keys of {@link CompactionConfig} with {@link dev.lakestream.core.config.ConfigKeys}. */
public final class CompactionConfigKeys implements ConfigKeySet {

    @Override
    public List<String> keys() {
        return CompactionConfig.KEYS;
    }
}
