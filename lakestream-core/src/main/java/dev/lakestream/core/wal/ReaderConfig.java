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
 * @param readAheadBytes how far a sequential reader of a large object (one read by range) has the stream's next bytes
 *     fetched ahead, in parallel GETs of a quarter of this size, kept within a quarter of {@code cacheBytes}
 *     ({@code lakestream.reader.readAheadSize}, default 4 MiB; 0 turns it off)
 */
public record ReaderConfig(long cacheBytes, long wholeObjectMaxBytes, int prefetchRecords, long readAheadBytes) {

    public static final ReaderConfig DEFAULT = new ReaderConfig(256L << 20, 1L << 20, 4, 4L << 20);

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
        if (readAheadBytes < 0 || readAheadBytes > Integer.MAX_VALUE) {
            throw new ConfigException("lakestream.reader.readAheadSize", String.valueOf(readAheadBytes),
                    "must be between 0 and 2 GiB");
        }
    }

    /** This configuration with another {@link #readAheadBytes}. */
    public ReaderConfig withReadAhead(long bytes) {
        return new ReaderConfig(cacheBytes, wholeObjectMaxBytes, prefetchRecords, bytes);
    }

    public static ReaderConfig fromProperties(ConfigReader r) {
        return new ReaderConfig(r.bytes("lakestream.reader.cacheSize", DEFAULT.cacheBytes),
                r.bytes("lakestream.reader.wholeObjectMaxSize", DEFAULT.wholeObjectMaxBytes),
                r.integer("lakestream.reader.prefetchRecords", DEFAULT.prefetchRecords),
                r.bytes("lakestream.reader.readAheadSize", DEFAULT.readAheadBytes));
    }
}
