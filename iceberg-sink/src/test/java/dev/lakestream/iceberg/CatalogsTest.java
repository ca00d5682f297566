package dev.lakestream.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.jdbc.UncheckedSQLException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CatalogsTest {

    /**
     * As two brokers starting together, or a broker and a reader: each opens the same new SQLite catalog, and
     * Iceberg's migration of its table (an ALTER TABLE ... ADD COLUMN after a check) runs in both; the broker whose
     * ALTER lost exited at start (CI, IcebergInBrokerTest).
     */
    @Test
    void catalogsOpenedAtOnceOnANewDatabaseAllOpen(@TempDir Path dir) throws Exception {
        int rounds = 30;
        int openers = 4;
        ExecutorService pool = Executors.newFixedThreadPool(openers);
        try {
            for (int round = 0; round < rounds; round++) {
                CatalogConfig config = CatalogConfig.embedded(dir.resolve("round-" + round));
                CyclicBarrier together = new CyclicBarrier(openers);
                List<CompletableFuture<Catalog>> opened = new ArrayList<>();
                for (int i = 0; i < openers; i++) {
                    opened.add(CompletableFuture.supplyAsync(
                            () -> {
                                try {
                                    together.await();
                                } catch (Exception e) {
                                    throw new IllegalStateException(e);
                                }
                                return Catalogs.open(config);
                            },
                            pool));
                }
                for (int i = 0; i < openers; i++) {
                    Catalog c = opened.get(i).join();
                    ((SupportsNamespaces) c).createNamespace(Namespace.of("n" + i), Map.of());
                    ((AutoCloseable) c).close();
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aCatalogDatabaseThatCannotBeOpenedFailsAfterOneMoreTryWithBothErrors(@TempDir Path dir) {
        // A directory where the database file should be: SQLite cannot open it, on the first try or the second.
        CatalogConfig config = new CatalogConfig(
                "c", "jdbc", "jdbc:sqlite:" + dir, dir.resolve("w").toUri().toString(), Map.of());
        assertThatThrownBy(() -> Catalogs.open(config))
                .isInstanceOf(UncheckedSQLException.class)
                .satisfies(e -> assertThat(e.getSuppressed()).hasSize(1));
    }
}
