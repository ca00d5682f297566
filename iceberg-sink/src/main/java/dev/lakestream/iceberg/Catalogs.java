package dev.lakestream.iceberg;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.Catalog;

/** Opens the Iceberg catalog a {@link CatalogConfig} describes. */
public final class Catalogs {

    private Catalogs() {}

    /** The catalog (close it when done if it is {@link AutoCloseable}; JdbcCatalog holds connections). */
    public static Catalog open(CatalogConfig config) {
        String sqlite = "jdbc:sqlite:";
        if (config.uri().startsWith(sqlite)) {
            // SQLite creates the database file but not its directory.
            Path db = Path.of(config.uri().substring(sqlite.length()));
            try {
                if (db.getParent() != null) {
                    Files.createDirectories(db.getParent());
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot create the directory of the catalog database " + db, e);
            }
        }
        return CatalogUtil.buildIcebergCatalog(config.name(), config.catalogProperties(), null);
    }
}
