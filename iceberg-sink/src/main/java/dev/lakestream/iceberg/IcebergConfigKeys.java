package dev.lakestream.iceberg;

import dev.lakestream.core.config.ConfigException;
import dev.lakestream.core.config.ConfigKeySet;
import java.util.List;
import java.util.stream.Stream;

/**
 * The materializer's {@code lakestream.iceberg.*} keys ({@link CatalogConfig}, {@link MaterializerConfig}, {@link HostConfig}, {@link UpkeepConfig}), registered
 * with lakestream-core's {@link dev.lakestream.core.config.ConfigKeys} through {@code META-INF/services}, so that a
 * broker or tool with this module on its class path accepts them and still refuses misspellings.
 */
public final class IcebergConfigKeys implements ConfigKeySet {

    static final List<String> KEYS = List.of(
            "lakestream.iceberg.catalog.type",
            "lakestream.iceberg.catalog.name",
            "lakestream.iceberg.catalog.uri",
            "lakestream.iceberg.warehouse",
            "lakestream.iceberg.commitInterval",
            "lakestream.iceberg.targetFileSize",
            "lakestream.iceberg.pollInterval",
            "lakestream.iceberg.readEntries",
            "lakestream.iceberg.readBytes",
            "lakestream.iceberg.partitionByDay",
            "lakestream.iceberg.maxBufferedBytes",
            "lakestream.iceberg.readTimeout");

    /** Passed through to the catalog and to new tables. */
    static final List<String> PREFIXES =
            List.of("lakestream.iceberg.catalog.property.", "lakestream.iceberg.table.property.");

    @Override
    public List<String> keys() {
        return Stream.of(KEYS, HostConfig.KEYS, UpkeepConfig.KEYS)
                .flatMap(List::stream)
                .toList();
    }

    /**
     * Refuses {@code lakestream.iceberg.*} keys among {@code keys} that are not this module's, naming each: for a host
     * (the broker plugin) whose class loader the core's {@code ConfigKeys} cannot see.
     */
    public static void requireKnown(java.util.Collection<String> keys) {
        IcebergConfigKeys mine = new IcebergConfigKeys();
        List<String> unknown = keys.stream()
                .filter(k -> k.startsWith("lakestream.iceberg.")
                        && !mine.keys().contains(k)
                        && PREFIXES.stream().noneMatch(k::startsWith))
                .sorted()
                .toList();
        if (!unknown.isEmpty()) {
            throw new ConfigException(
                    unknown.get(0),
                    "(set)",
                    "is not a key of the Iceberg materializer"
                            + (unknown.size() > 1
                                    ? " (nor are " + String.join(", ", unknown.subList(1, unknown.size())) + ")"
                                    : "")
                            + "; the lakestream.iceberg.* keys are listed in docs/configuration.md");
        }
    }

    @Override
    public List<String> prefixes() {
        return PREFIXES;
    }
}
