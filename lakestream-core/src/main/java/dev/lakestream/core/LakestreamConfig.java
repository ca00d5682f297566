package dev.lakestream.core;

import dev.lakestream.core.config.ConfigChecks;
import dev.lakestream.core.config.ConfigException;
import dev.lakestream.core.config.ConfigReader;
import dev.lakestream.core.wal.ReaderConfig;
import dev.lakestream.core.wal.WalWriterConfig;
import java.time.Duration;
import java.util.List;

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
public record LakestreamConfig(
        String metadataRoot,
        WalWriterConfig writer,
        ReaderConfig reader,
        Duration tailPollInterval,
        Duration cursorPersistInterval) {

    public static final String METADATA_ROOT = "lakestream.metadata.root";
    public static final String TAIL_POLL_INTERVAL = "lakestream.reader.tailPollInterval";
    public static final String CURSOR_PERSIST_INTERVAL = "lakestream.cursor.persistInterval";
    public static final String OBJECT_STORE = "lakestream.objectStore";
    public static final String METADATA_STORE = "lakestream.metadataStore";

    /** Every key this config reads (registered by {@link LakestreamConfigKeys}). */
    public static final List<String> KEYS =
            List.of(METADATA_ROOT, TAIL_POLL_INTERVAL, CURSOR_PERSIST_INTERVAL, OBJECT_STORE, METADATA_STORE);

    public static final LakestreamConfig DEFAULT = new LakestreamConfig(
            "/lakestream", WalWriterConfig.DEFAULT, ReaderConfig.DEFAULT, Duration.ofMillis(50), Duration.ofSeconds(1));

    public LakestreamConfig {
        if (!metadataRoot.startsWith("/") || metadataRoot.endsWith("/")) {
            throw new ConfigException(METADATA_ROOT, metadataRoot, "must start with '/' and not end with it");
        }
        ConfigChecks.requirePositive(TAIL_POLL_INTERVAL, tailPollInterval);
        ConfigChecks.requireNotNegative(CURSOR_PERSIST_INTERVAL, cursorPersistInterval);
    }

    /**
     * Reads the keys; the writer's PUT-rate cap defaults by object store: S3 PUTs are priced, the filesystem
     * store's are not (see {@link WalWriterConfig#FILESYSTEM_MAX_PUTS_PER_SECOND}).
     */
    public static LakestreamConfig fromProperties(ConfigReader r) {
        int maxPutsPerSecond = objectStoreKind(r) == ObjectStoreKind.FILESYSTEM
                ? WalWriterConfig.FILESYSTEM_MAX_PUTS_PER_SECOND
                : WalWriterConfig.DEFAULT_MAX_PUTS_PER_SECOND;
        return new LakestreamConfig(
                r.string(METADATA_ROOT, DEFAULT.metadataRoot),
                WalWriterConfig.fromProperties(r, maxPutsPerSecond),
                ReaderConfig.fromProperties(r),
                r.duration(TAIL_POLL_INTERVAL, DEFAULT.tailPollInterval),
                r.duration(CURSOR_PERSIST_INTERVAL, DEFAULT.cursorPersistInterval));
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
    public enum ObjectStoreKind {
        S3,
        FILESYSTEM
    }

    public enum MetadataStoreKind {
        OXIA,
        EMBEDDED
    }

    /** {@code lakestream.objectStore}: {@code s3} or {@code filesystem} (the default). */
    public static ObjectStoreKind objectStoreKind(ConfigReader r) {
        return r.choice(OBJECT_STORE, ObjectStoreKind.FILESYSTEM);
    }

    /** {@code lakestream.metadataStore}: {@code oxia} or {@code embedded} (the default). */
    public static MetadataStoreKind metadataStoreKind(ConfigReader r) {
        return r.choice(METADATA_STORE, MetadataStoreKind.EMBEDDED);
    }
}
