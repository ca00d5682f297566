package dev.lakestream.core.metadata.embedded;

import dev.lakestream.core.config.ConfigKeySet;
import java.util.List;

/**
 * Registers the keys of {@link EmbeddedMetadataStoreConfig} with {@link dev.lakestream.core.config.ConfigKeys} (through
 * {@code META-INF/services/dev.lakestream.core.config.ConfigKeySet}), so that the config package needs to know
 * nothing of this one.
 */
public final class EmbeddedMetadataStoreConfigKeys implements ConfigKeySet {

    @Override
    public List<String> keys() {
        return EmbeddedMetadataStoreConfig.KEYS;
    }
}
