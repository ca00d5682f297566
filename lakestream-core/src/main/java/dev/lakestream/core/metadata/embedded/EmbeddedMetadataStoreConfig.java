package dev.lakestream.core.metadata.embedded;

import dev.lakestream.core.config.ConfigException;
import dev.lakestream.core.config.ConfigReader;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * Configuration of {@link EmbeddedMetadataStore}.
 *
 * <table>
 * <caption>Keys</caption>
 * <tr><th>Key</th><th>Default</th><th>Meaning</th></tr>
 * <tr><td>{@value #DATA_DIR}</td><td>(required)</td><td>directory of the store's RocksDB files; created if
 *     missing; one open store per directory</td></tr>
 * <tr><td>{@value #SYNC}</td><td>{@code true}</td><td>fsync the write-ahead log before acknowledging a write, so
 *     an acknowledged write survives a crash of the machine (writes waiting together share one fsync);
 *     {@code false} survives a crash of the process only</td></tr>
 * </table>
 *
 * @param dataDir where the store keeps its files
 * @param sync fsync writes (in groups) before acknowledging them
 */
public record EmbeddedMetadataStoreConfig(Path dataDir, boolean sync) {

    public static final String DATA_DIR = "lakestream.embedded.dataDir";
    public static final String SYNC = "lakestream.embedded.sync";

    /** Every key this config reads (registered by {@link EmbeddedMetadataStoreConfigKeys}). */
    public static final List<String> KEYS = List.of(DATA_DIR, SYNC);

    public static final boolean DEFAULT_SYNC = true;

    public EmbeddedMetadataStoreConfig {
        if (dataDir == null) {
            throw new ConfigException(DATA_DIR, null, "is required");
        }
        dataDir = dataDir.toAbsolutePath().normalize();
    }

    /** A config for {@code dataDir} with the default {@value #SYNC}. */
    public static EmbeddedMetadataStoreConfig of(Path dataDir) {
        return new EmbeddedMetadataStoreConfig(dataDir, DEFAULT_SYNC);
    }

    /** Reads the {@code lakestream.embedded.*} keys. */
    public static EmbeddedMetadataStoreConfig fromProperties(ConfigReader reader) {
        Objects.requireNonNull(reader, "reader");
        String dir = reader.required(DATA_DIR);
        Path path;
        try {
            path = Path.of(dir);
        } catch (InvalidPathException e) {
            throw new ConfigException(DATA_DIR, dir, "is not a valid path: " + e.getReason());
        }
        return new EmbeddedMetadataStoreConfig(path, reader.bool(SYNC, DEFAULT_SYNC));
    }

    public EmbeddedMetadataStoreConfig withSync(boolean s) {
        return new EmbeddedMetadataStoreConfig(dataDir, s);
    }

    /** {@code embedded:/abs/dir}, the address used in messages. */
    public String address() {
        return "embedded:" + dataDir;
    }
}
