package dev.lakestream.core;

import dev.lakestream.core.config.ConfigException;
import dev.lakestream.core.config.ConfigReader;
import dev.lakestream.core.wal.ReaderConfig;
import dev.lakestream.core.wal.WalWriterConfig;
import java.time.Duration;
import java.util.Locale;

/**
 * Everything the log needs besides its two stores.
 *
 * @param metadataRoot the key prefix of the catalog, fences and cursors in the metadata store
 *     ({@code lakestream.metadata.root}, default {@code /lakestream}); the offset index and trim markers use
 *     the Lakestream layout's own keys
 * @param tailPollInterval how often a stream with readers waiting at its end is polled, bounding how late
 *     they learn of appends by other processes if a notification is lost ({@code lakestream.reader.tailPollInterval},
 *     default 50 ms)
 * @param cursorPersistInterval durable cursors write their state at most this often
 *     ({@code lakestream.cursor.persistInterval}, default 1 s)
 */
public record LakestreamConfig(String metadataRoot, WalWriterConfig writer, ReaderConfig reader,
                               Duration tailPollInterval, Duration cursorPersistInterval) {

    public static final LakestreamConfig DEFAULT = new LakestreamConfig("/lakestream", WalWriterConfig.DEFAULT,
            ReaderConfig.DEFAULT, Duration.ofMillis(50), Duration.ofSeconds(1));

    public LakestreamConfig {
        if (!metadataRoot.startsWith("/") || metadataRoot.endsWith("/")) {
            throw new ConfigException("lakestream.metadata.root", metadataRoot, "must start with '/' and not end with it");
        }
        if (tailPollInterval.isNegative() || tailPollInterval.isZero()) {
            throw new ConfigException("lakestream.reader.tailPollInterval", tailPollInterval.toString(), "must be positive");
        }
        if (cursorPersistInterval.isNegative()) {
            throw new ConfigException("lakestream.cursor.persistInterval", cursorPersistInterval.toString(),
                    "must not be negative");
        }
    }

    /**
     * Reads the keys; the writer's PUT-rate cap defaults by object store: S3 PUTs are priced, the filesystem
     * store's are not (see {@link WalWriterConfig#FILESYSTEM_MAX_PUTS_PER_SECOND}).
     */
    public static LakestreamConfig fromProperties(ConfigReader r) {
        int maxPutsPerSecond = objectStoreKind(r) == ObjectStoreKind.FILESYSTEM
                ? WalWriterConfig.FILESYSTEM_MAX_PUTS_PER_SECOND : WalWriterConfig.DEFAULT_MAX_PUTS_PER_SECOND;
        return new LakestreamConfig(r.string("lakestream.metadata.root", DEFAULT.metadataRoot),
                WalWriterConfig.fromProperties(r, maxPutsPerSecond), ReaderConfig.fromProperties(r),
                r.duration("lakestream.reader.tailPollInterval", DEFAULT.tailPollInterval),
                r.duration("lakestream.cursor.persistInterval", DEFAULT.cursorPersistInterval));
    }

    public LakestreamConfig withMetadataRoot(String root) {
        return new LakestreamConfig(root, writer, reader, tailPollInterval, cursorPersistInterval);
    }

    public LakestreamConfig withWriter(WalWriterConfig w) {
        return new LakestreamConfig(metadataRoot, w, reader, tailPollInterval, cursorPersistInterval);
    }

    public LakestreamConfig withReader(ReaderConfig r) {
        return new LakestreamConfig(metadataRoot, writer, r, tailPollInterval, cursorPersistInterval);
    }

    /** Which stores a deployment uses: {@code lakestream.objectStore} and {@code lakestream.metadataStore}. */
    public enum ObjectStoreKind { S3, FILESYSTEM }

    public enum MetadataStoreKind { OXIA, EMBEDDED }

    public static ObjectStoreKind objectStoreKind(ConfigReader r) {
        String v = r.string("lakestream.objectStore", "filesystem").toUpperCase(Locale.ROOT);
        try {
            return ObjectStoreKind.valueOf(v);
        } catch (IllegalArgumentException e) {
            throw new ConfigException("lakestream.objectStore", v, "must be 's3' or 'filesystem'");
        }
    }

    public static MetadataStoreKind metadataStoreKind(ConfigReader r) {
        String v = r.string("lakestream.metadataStore", "embedded").toUpperCase(Locale.ROOT);
        try {
            return MetadataStoreKind.valueOf(v);
        } catch (IllegalArgumentException e) {
            throw new ConfigException("lakestream.metadataStore", v, "must be 'oxia' or 'embedded'");
        }
    }
}
