package dev.lakestream.tests;

import dev.lakestream.iceberg.CatalogConfig;
import dev.lakestream.iceberg.Catalogs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.catalog.Catalog;

/**
 * The configuration file of the standalone tools ({@code bin/lakestream-materialize}, {@code bin/lakestream}) for a
 * broker's stores: the broker's {@code lakestream.*} keys (its bucket or objects directory, its metadata store), an
 * Iceberg catalog (JdbcCatalog on SQLite) and warehouse under {@code dir}, fast commits for a test.
 */
final class StandaloneToolsConf {

    private final PulsarBrokerExtension broker;
    private final Path dir;

    StandaloneToolsConf(PulsarBrokerExtension broker, Path dir) {
        this.broker = broker;
        this.dir = dir;
    }

    /**
     * Writes {@code dir/<name>.conf}: the materializer's status file is {@code dir/<name>}, it materializes
     * {@code topics} ({@code lakestream.materialize.topics}: namespaces and topics, comma-separated).
     */
    Path write(String name, String topics) throws IOException {
        Map<String, String> props = new TreeMap<>();
        broker.configuration().getProperties().forEach((k, v) -> {
            if (k.toString().startsWith("lakestream.")) {
                props.put(k.toString(), v.toString());
            }
        });
        props.put("lakestream.iceberg.catalog.uri", "jdbc:sqlite:" + catalogDb());
        props.put("lakestream.iceberg.warehouse", warehouse());
        props.put("lakestream.iceberg.commitInterval", "300ms");
        props.put("lakestream.iceberg.pollInterval", "100ms");
        props.put("lakestream.materialize.topics", topics);
        props.put("lakestream.materialize.discoveryInterval", "1s");
        props.put("lakestream.materialize.dataDir", dir.toString());
        props.put("lakestream.materialize.statusFile", dir.resolve(name).toString());
        Path file = dir.resolve(name + ".conf");
        StringBuilder sb = new StringBuilder();
        props.forEach((k, v) -> sb.append(k).append('=').append(v).append('\n'));
        Files.writeString(file, sb.toString());
        return file;
    }

    Path catalogDb() {
        return dir.resolve("iceberg/catalog.db");
    }

    String warehouse() {
        return dir.resolve("iceberg/warehouse").toUri().toString();
    }

    /** The catalog the materializer writes, opened as another engine would. */
    Catalog catalog() {
        return Catalogs.open(new CatalogConfig(
                CatalogConfig.DEFAULT_NAME, "jdbc", "jdbc:sqlite:" + catalogDb(), warehouse(), Map.of()));
    }
}
