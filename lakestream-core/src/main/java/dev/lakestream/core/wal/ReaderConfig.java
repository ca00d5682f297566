package dev.lakestream.core.wal;

import dev.lakestream.core.config.ConfigChecks;
import dev.lakestream.core.config.ConfigException;
import dev.lakestream.core.config.ConfigReader;
import java.util.List;

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

    public static final String CACHE_SIZE = "lakestream.reader.cacheSize";
    public static final String WHOLE_OBJECT_MAX_SIZE = "lakestream.reader.wholeObjectMaxSize";
    public static final String PREFETCH_RECORDS = "lakestream.reader.prefetchRecords";
    public static final String READ_AHEAD_SIZE = "lakestream.reader.readAheadSize";

    /** Every key this config reads (registered by {@link WalConfigKeys}). */
    public static final List<String> KEYS =
            List.of(CACHE_SIZE, WHOLE_OBJECT_MAX_SIZE, PREFETCH_RECORDS, READ_AHEAD_SIZE);

    public static final ReaderConfig DEFAULT = new ReaderConfig(256L << 20, 1L << 20, 4, 4L << 20);

    public ReaderConfig {
        ConfigChecks.requireNotNegative(CACHE_SIZE, cacheBytes);
        ConfigChecks.requireNotNegative(WHOLE_OBJECT_MAX_SIZE, wholeObjectMaxBytes);
        ConfigChecks.requireNotNegative(PREFETCH_RECORDS, prefetchRecords);
        if (readAheadBytes < 0 || readAheadBytes > Integer.MAX_VALUE) {
            throw new ConfigException(READ_AHEAD_SIZE, String.valueOf(readAheadBytes), "must be between 0 and 2 GiB");
        }
    }

    /** This configuration with another {@link #readAheadBytes}. */
    public ReaderConfig withReadAhead(long bytes) {
        return new ReaderConfig(cacheBytes, wholeObjectMaxBytes, prefetchRecords, bytes);
    }

    public static ReaderConfig fromProperties(ConfigReader r) {
        return new ReaderConfig(
                r.bytes(CACHE_SIZE, DEFAULT.cacheBytes),
                r.bytes(WHOLE_OBJECT_MAX_SIZE, DEFAULT.wholeObjectMaxBytes),
                r.integer(PREFETCH_RECORDS, DEFAULT.prefetchRecords),
                r.bytes(READ_AHEAD_SIZE, DEFAULT.readAheadBytes));
    }
}
