package dev.lakestream.iceberg;

import dev.lakestream.core.config.ConfigKeySet;
import java.util.List;

/**
 * The materializer's {@code lakestream.iceberg.*} keys ({@link CatalogConfig}, {@link MaterializerConfig}), registered
 * with lakestream-core's {@link dev.lakestream.core.config.ConfigKeys} through {@code META-INF/services}, so that a
 * broker or tool with this module on its class path accepts them and still refuses misspellings.
 */
public final class IcebergConfigKeys implements ConfigKeySet {

    static final List<String> KEYS = List.of("lakestream.iceberg.catalog.type", "lakestream.iceberg.catalog.name",
            "lakestream.iceberg.catalog.uri", "lakestream.iceberg.warehouse", "lakestream.iceberg.commitInterval",
            "lakestream.iceberg.targetFileSize", "lakestream.iceberg.pollInterval", "lakestream.iceberg.readEntries",
            "lakestream.iceberg.readBytes", "lakestream.iceberg.partitionByDay");

    /** Passed through to the catalog and to new tables. */
    static final List<String> PREFIXES = List.of("lakestream.iceberg.catalog.property.",
            "lakestream.iceberg.table.property.");

    @Override
    public List<String> keys() {
        return KEYS;
    }

    @Override
    public List<String> prefixes() {
        return PREFIXES;
    }
}
