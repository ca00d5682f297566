package dev.lakestream.core.objectstore.s3;

import dev.lakestream.core.config.ConfigKeySet;
import java.util.List;

/**
 * Registers the keys of {@link S3ObjectStoreConfig} with {@link dev.lakestream.core.config.ConfigKeys} (through
 * {@code META-INF/services/dev.lakestream.core.config.ConfigKeySet}), and tells
 * {@link dev.lakestream.core.config.Secrets} which of them hold credentials, so that the config package needs to know
 * nothing of this one.
 */
public final class S3ObjectStoreConfigKeys implements ConfigKeySet {

    @Override
    public List<String> keys() {
        return S3ObjectStoreConfig.KEYS;
    }

    /** The secret access key: never shown. */
    @Override
    public List<String> secretKeys() {
        return List.of(S3ObjectStoreConfig.SECRET_ACCESS_KEY);
    }

    /** The access key id: shown by its last characters. */
    @Override
    public List<String> credentialIdKeys() {
        return List.of(S3ObjectStoreConfig.ACCESS_KEY_ID);
    }
}
