package dev.lakestream.iceberg;

import dev.lakestream.core.config.ConfigException;
import dev.lakestream.core.config.ConfigReader;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Which Iceberg catalog holds the tables and where their files go (keys {@code lakestream.iceberg.catalog.*} and
 * {@code lakestream.iceberg.warehouse}, see docs/configuration.md).
 *
 * @param name the catalog name; readers must use the same one (a JDBC catalog keys its rows by it)
 * @param type {@code jdbc} (Iceberg's JdbcCatalog: SQLite embedded, PostgreSQL) or {@code rest}
 * @param uri the JDBC URL or the REST catalog's URI
 * @param warehouse where table files go: a {@code file:} URI (LocalFileIO) or {@code s3://bucket/prefix} (S3FileIO)
 * @param properties further catalog properties passed as they are (credential, token, jdbc.user, s3.*, ...)
 */
public record CatalogConfig(String name, String type, String uri, String warehouse, Map<String, String> properties) {

    public static final String DEFAULT_NAME = "lakestream";
    private static final String EXTRA_PREFIX = "lakestream.iceberg.catalog.property.";

    public CatalogConfig {
        Objects.requireNonNull(name, "name");
        if (!type.equals("jdbc") && !type.equals("rest")) {
            throw new ConfigException("lakestream.iceberg.catalog.type", type, "must be jdbc or rest");
        }
        Objects.requireNonNull(uri, "uri");
        Objects.requireNonNull(warehouse, "warehouse");
        properties = Map.copyOf(properties);
    }

    /** The embedded default: a JDBC catalog on SQLite and a warehouse directory, both under {@code dataDir}. */
    public static CatalogConfig embedded(Path dataDir) {
        Path dir = dataDir.toAbsolutePath().resolve("iceberg");
        return new CatalogConfig(
                DEFAULT_NAME,
                "jdbc",
                "jdbc:sqlite:" + dir.resolve("catalog.db"),
                dir.resolve("warehouse").toUri().toString(),
                Map.of());
    }

    /** Reads the keys; without {@code lakestream.iceberg.catalog.uri} the embedded default under {@code dataDir}. */
    public static CatalogConfig fromProperties(Map<String, String> props, Path dataDir) {
        ConfigReader p = new ConfigReader(props);
        CatalogConfig d = embedded(dataDir);
        Map<String, String> extra = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : props.entrySet()) {
            if (e.getKey().startsWith(EXTRA_PREFIX)) {
                extra.put(e.getKey().substring(EXTRA_PREFIX.length()), e.getValue());
            }
        }
        String warehouse = p.string("lakestream.iceberg.warehouse", d.warehouse());
        Map<String, String> all = new LinkedHashMap<>();
        if (isS3(warehouse)) {
            // The same S3 settings as the object store, unless given for Iceberg explicitly.
            p.optional("lakestream.s3.endpoint").ifPresent(v -> all.put("s3.endpoint", v));
            p.optional("lakestream.s3.region").ifPresent(v -> all.put("client.region", v));
            p.optional("lakestream.s3.pathStyleAccess").ifPresent(v -> all.put("s3.path-style-access", v));
            p.optional("lakestream.s3.accessKeyId").ifPresent(v -> all.put("s3.access-key-id", v));
            p.optional("lakestream.s3.secretAccessKey").ifPresent(v -> all.put("s3.secret-access-key", v));
        }
        all.putAll(extra);
        return new CatalogConfig(
                p.string("lakestream.iceberg.catalog.name", d.name()),
                p.string("lakestream.iceberg.catalog.type", d.type()),
                p.string("lakestream.iceberg.catalog.uri", d.uri()),
                warehouse,
                all);
    }

    private static boolean isS3(String location) {
        return location.startsWith("s3://") || location.startsWith("s3a://");
    }

    /** The properties Iceberg's {@code CatalogUtil.buildIcebergCatalog} takes. */
    public Map<String, String> catalogProperties() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("type", type);
        m.put("uri", uri);
        m.put("warehouse", warehouse);
        if (warehouse.startsWith("file:") || warehouse.startsWith("/")) {
            m.put("io-impl", "dev.lakestream.iceberg.io.LocalFileIO");
        } else if (isS3(warehouse)) {
            m.put("io-impl", "org.apache.iceberg.aws.s3.S3FileIO");
            // The SDK client we ship (no Apache HTTP client), and a client factory that loads no STS/KMS classes.
            m.put("http-client.type", "urlconnection");
            m.put("s3.client-factory-impl", "org.apache.iceberg.aws.s3.DefaultS3FileIOAwsClientFactory");
        }
        if (type.equals("jdbc")) {
            // V1 also keeps views; the tables are the same either way.
            m.put("jdbc.schema-version", "V1");
        }
        m.putAll(properties);
        return m;
    }
}
