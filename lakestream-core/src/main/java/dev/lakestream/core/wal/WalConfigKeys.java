package dev.lakestream.core.wal;

import dev.lakestream.core.config.ConfigKeySet;
import java.util.List;
import java.util.stream.Stream;

/**
 * Registers the keys of {@link WalWriterConfig} and {@link ReaderConfig} with
 * {@link dev.lakestream.core.config.ConfigKeys} (through
 * {@code META-INF/services/dev.lakestream.core.config.ConfigKeySet}), so that the config package needs to know
 * nothing of this one.
 */
public final class WalConfigKeys implements ConfigKeySet {

    @Override
    public List<String> keys() {
        return Stream.concat(WalWriterConfig.KEYS.stream(), ReaderConfig.KEYS.stream())
                .toList();
    }
}
