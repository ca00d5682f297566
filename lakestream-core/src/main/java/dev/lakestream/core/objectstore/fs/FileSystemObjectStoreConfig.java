package dev.lakestream.core.objectstore.fs;

import dev.lakestream.core.config.ConfigException;
import dev.lakestream.core.config.ConfigReader;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.List;

/**
 * The settings of a {@link FileSystemObjectStore}, validated on construction (a {@link ConfigException}
 * names the key of the bad value).
 *
 * @param root the directory that holds the objects ({@value #ROOT}, required)
 * @param createRoot create {@code root} (and its parents) when missing ({@value #CREATE_ROOT}, default
 *     true); when false a missing root fails with
 *     {@link dev.lakestream.core.objectstore.BucketNotFoundException}
 * @param fsync force each object file and its directory to disk before a put completes ({@value #FSYNC},
 *     default true; false only for tests and throw-away data)
 * @param ioThreads threads doing the file I/O ({@value #IO_THREADS}, default 4)
 */
public record FileSystemObjectStoreConfig(Path root, boolean createRoot, boolean fsync, int ioThreads) {

    public static final String ROOT = "lakestream.fs.root";
    public static final String CREATE_ROOT = "lakestream.fs.createRoot";
    public static final String FSYNC = "lakestream.fs.fsync";
    public static final String IO_THREADS = "lakestream.fs.ioThreads";

    /** Every key this config reads (registered by {@link FileSystemObjectStoreConfigKeys}). */
    public static final List<String> KEYS = List.of(ROOT, CREATE_ROOT, FSYNC, IO_THREADS);

    public static final boolean DEFAULT_CREATE_ROOT = true;
    public static final boolean DEFAULT_FSYNC = true;
    public static final int DEFAULT_IO_THREADS = 4;

    public FileSystemObjectStoreConfig {
        if (root == null) {
            throw new ConfigException(ROOT, null, "is required");
        }
        root = root.toAbsolutePath().normalize();
        if (ioThreads < 1 || ioThreads > 1024) {
            throw new ConfigException(IO_THREADS, String.valueOf(ioThreads), "must be in 1..1024");
        }
    }

    /** The defaults for {@code root}: create it, fsync, 4 I/O threads. */
    public static FileSystemObjectStoreConfig of(Path root) {
        return new FileSystemObjectStoreConfig(root, DEFAULT_CREATE_ROOT, DEFAULT_FSYNC, DEFAULT_IO_THREADS);
    }

    /** Reads the {@code lakestream.fs.*} keys; absent keys take the defaults above. */
    public static FileSystemObjectStoreConfig fromProperties(ConfigReader reader) {
        String root = reader.required(ROOT);
        Path path;
        try {
            path = Path.of(root);
        } catch (InvalidPathException e) {
            throw new ConfigException(ROOT, root, "is not a path: " + e.getReason());
        }
        return new FileSystemObjectStoreConfig(
                path,
                reader.bool(CREATE_ROOT, DEFAULT_CREATE_ROOT),
                reader.bool(FSYNC, DEFAULT_FSYNC),
                reader.integer(IO_THREADS, DEFAULT_IO_THREADS));
    }

    public FileSystemObjectStoreConfig withFsync(boolean v) {
        return new FileSystemObjectStoreConfig(root, createRoot, v, ioThreads);
    }

    public FileSystemObjectStoreConfig withCreateRoot(boolean v) {
        return new FileSystemObjectStoreConfig(root, v, fsync, ioThreads);
    }

    public FileSystemObjectStoreConfig withIoThreads(int v) {
        return new FileSystemObjectStoreConfig(root, createRoot, fsync, v);
    }
}
