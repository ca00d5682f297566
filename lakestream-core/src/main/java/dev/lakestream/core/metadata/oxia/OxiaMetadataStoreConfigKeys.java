package dev.lakestream.core.metadata.oxia;

import dev.lakestream.core.config.ConfigKeySet;
import java.util.List;

/**
 * Registers the keys of {@link OxiaMetadataStoreConfig} with {@link dev.lakestream.core.config.ConfigKeys} (through
 * {@code META-INF/services/dev.lakestream.core.config.ConfigKeySet}), so that the config package needs to know
 * nothing of this one.
 */
public final class OxiaMetadataStoreConfigKeys implements ConfigKeySet {

    @Override
    public List<String> keys() {
        return OxiaMetadataStoreConfig.KEYS;
    }
}
