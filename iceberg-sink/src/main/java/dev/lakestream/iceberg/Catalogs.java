package dev.lakestream.iceberg;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.jdbc.JdbcClientPool;
import org.apache.iceberg.jdbc.UncheckedSQLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Opens the Iceberg catalog a {@link CatalogConfig} describes. */
public final class Catalogs {

    private static final Logger LOG = LoggerFactory.getLogger(Catalogs.class);

    private Catalogs() {}

    /** The catalog (close it when done if it is {@link AutoCloseable}; JdbcCatalog holds connections). */
    public static Catalog open(CatalogConfig config) {
        if (!config.type().equals("jdbc")) {
            return CatalogUtil.buildIcebergCatalog(config.name(), config.catalogProperties(), null);
        }
        createSqliteDirectory(config.uri());
        try {
            return openJdbc(config, null);
        } catch (UncheckedSQLException first) {
            // Two processes opening a new catalog database at once (brokers starting together, a broker and a
            // reader) both find the view column missing and both add it; the later ALTER fails. Iceberg's
            // JdbcCatalog makes its tables race-free but not that migration. Once it failed, the column is there.
            LOG.info(
                    "Opening the Iceberg catalog {} at {} failed ({}); trying once more, as another process may have"
                            + " been setting up the same catalog database",
                    config.name(),
                    config.uri(),
                    first.getMessage());
            return openJdbc(config, first);
        }
    }

    /**
     * A JdbcCatalog, initialised; when that fails, the connection pool and FileIO it made are closed (JdbcCatalog
     * registers them for closing only once initialisation succeeded) and the failure is thrown.
     */
    private static Catalog openJdbc(CatalogConfig config, RuntimeException earlier) {
        List<AutoCloseable> made = new ArrayList<>();
        Function<Map<String, String>, FileIO> io = props -> {
            FileIO f = CatalogUtil.loadFileIO(
                    props.getOrDefault(CatalogProperties.FILE_IO_IMPL, "org.apache.iceberg.hadoop.HadoopFileIO"),
                    props,
                    null);
            made.add(f);
            return f;
        };
        Function<Map<String, String>, JdbcClientPool> pool = props -> {
            JdbcClientPool p = new JdbcClientPool(props.get(CatalogProperties.URI), props);
            made.add(p);
            return p;
        };
        JdbcCatalog catalog = new JdbcCatalog(io, pool, true);
        try {
            catalog.initialize(config.name(), config.catalogProperties());
            return catalog;
        } catch (RuntimeException e) {
            for (AutoCloseable c : made) {
                try {
                    c.close();
                } catch (Exception closing) {
                    e.addSuppressed(closing);
                }
            }
            if (earlier != null) {
                e.addSuppressed(earlier);
            }
            throw e;
        }
    }

    /** SQLite creates the database file but not its directory. */
    private static void createSqliteDirectory(String uri) {
        String sqlite = "jdbc:sqlite:";
        if (!uri.startsWith(sqlite)) {
            return;
        }
        Path db = Path.of(uri.substring(sqlite.length()));
        try {
            if (db.getParent() != null) {
                Files.createDirectories(db.getParent());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the directory of the catalog database " + db, e);
        }
    }
}
