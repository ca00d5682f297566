package dev.lakestream.core.config;

import java.util.List;
import java.util.ServiceLoader;

/**
 * The {@link ConfigKeySet}s on this class loader's class path (the core's packages' and other modules', such as the
 * Iceberg materializer's), found once with {@link ServiceLoader}: what {@link ConfigKeys} and {@link Secrets} read.
 */
final class RegisteredKeySets {

    static final List<ConfigKeySet> ALL =
            ServiceLoader.load(ConfigKeySet.class, ConfigKeySet.class.getClassLoader()).stream()
                    .map(ServiceLoader.Provider::get)
                    .toList();

    private RegisteredKeySets() {}
}
