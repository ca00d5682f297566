package dev.lakestream.core.config;

import java.util.List;

/**
 * The {@code lakestream.*} keys one package reads, registered with {@link java.util.ServiceLoader}
 * ({@code META-INF/services/dev.lakestream.core.config.ConfigKeySet}) so that {@link ConfigKeys} knows them and
 * start-up does not refuse them as misspellings, and {@link Secrets} knows which of them hold credentials. The
 * core's own packages register theirs this way too (one key set per package that has a config record), so this
 * package knows none of the packages that use it.
 */
public interface ConfigKeySet {

    /** Exact keys. */
    List<String> keys();

    /** Open-ended families: any key starting with one of these is known (e.g. passed-through table properties). */
    default List<String> prefixes() {
        return List.of();
    }

    /** Keys among {@link #keys()} whose values are secrets: never shown (see {@link Secrets}). */
    default List<String> secretKeys() {
        return List.of();
    }

    /**
     * Keys among {@link #keys()} whose values identify a credential (an access key id): shown by their last
     * characters only, enough to tell two apart (see {@link Secrets}).
     */
    default List<String> credentialIdKeys() {
        return List.of();
    }
}
