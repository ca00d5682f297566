package dev.lakestream.core.objectstore.fs;

import dev.lakestream.core.config.ConfigKeySet;
import java.util.List;

/**
 * Registers the keys of {@link FileSystemObjectStoreConfig} with {@link dev.lakestream.core.config.ConfigKeys} (through
 * {@code META-INF/services/dev.lakestream.core.config.ConfigKeySet}), so that the config package needs to know
 * nothing of this one.
 */
public final class FileSystemObjectStoreConfigKeys implements ConfigKeySet {

    @Override
    public List<String> keys() {
        return FileSystemObjectStoreConfig.KEYS;
    }
}
