package dev.lakestream.core.config;

import java.util.List;

/**
 * The {@code lakestream.*} keys a module outside lakestream-core reads (the Iceberg materializer's, say), registered
 * with {@link java.util.ServiceLoader} ({@code META-INF/services/dev.lakestream.core.config.ConfigKeySet}) so that
 * {@link ConfigKeys} knows them too and start-up does not refuse them as misspellings.
 */
public interface ConfigKeySet {

    /** Exact keys. */
    List<String> keys();

    /** Open-ended families: any key starting with one of these is known (e.g. passed-through table properties). */
    default List<String> prefixes() {
        return List.of();
    }
}
