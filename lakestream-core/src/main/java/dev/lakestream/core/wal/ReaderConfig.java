package dev.lakestream.core.wal;

import dev.lakestream.core.config.ConfigException;
import dev.lakestream.core.config.ConfigReader;

/**
 * How readers fetch WAL objects.
 *
 * @param cacheBytes memory for whole objects kept for readers, written and read
 *     ({@code lakestream.reader.cacheSize}, default 256 MiB)
 * @param wholeObjectMaxBytes objects up to this size are fetched whole and cached; larger ones are read by
 *     byte range: first their index, then only the entries wanted ({@code lakestream.reader.wholeObjectMaxSize},
 *     default 1 MiB)
 * @param prefetchRecords how many index records past the ones read a sequential reader fetches ahead
 *     ({@code lakestream.reader.prefetchRecords}, default 4; 0 turns prefetch off)
 */
public record ReaderConfig(long cacheBytes, long wholeObjectMaxBytes, int prefetchRecords) {

    public static final ReaderConfig DEFAULT = new ReaderConfig(256L << 20, 1L << 20, 4);

    public ReaderConfig {
        if (cacheBytes < 0) {
            throw new ConfigException("lakestream.reader.cacheSize", String.valueOf(cacheBytes), "must not be negative");
        }
        if (wholeObjectMaxBytes < 0) {
            throw new ConfigException("lakestream.reader.wholeObjectMaxSize", String.valueOf(wholeObjectMaxBytes),
                    "must not be negative");
        }
        if (prefetchRecords < 0) {
            throw new ConfigException("lakestream.reader.prefetchRecords", String.valueOf(prefetchRecords),
                    "must not be negative");
        }
    }

    public static ReaderConfig fromProperties(ConfigReader r) {
        return new ReaderConfig(r.bytes("lakestream.reader.cacheSize", DEFAULT.cacheBytes),
                r.bytes("lakestream.reader.wholeObjectMaxSize", DEFAULT.wholeObjectMaxBytes),
                r.integer("lakestream.reader.prefetchRecords", DEFAULT.prefetchRecords));
    }
}
