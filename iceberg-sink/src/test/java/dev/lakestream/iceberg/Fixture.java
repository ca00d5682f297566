package dev.lakestream.iceberg;

import dev.lakestream.core.Lakestream;
import dev.lakestream.core.StreamLog;
import dev.lakestream.core.catalog.StreamInfo;
import dev.lakestream.core.config.ConfigReader;
import dev.lakestream.core.metadata.MetadataStore;
import dev.lakestream.core.metadata.embedded.EmbeddedMetadataStoreConfig;
import dev.lakestream.core.objectstore.fs.FileSystemObjectStoreConfig;
import dev.lakestream.iceberg.schema.RegistrySchemaSource;
import dev.lakestream.pulsar.schema.LakestreamSchemaStorage;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Stream;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.pulsar.broker.service.schema.proto.SchemaInfo;
import org.apache.pulsar.common.schema.SchemaType;

/**
 * The embedded pair (directory object store + RocksDB metadata store) under a temporary directory, the schema
 * registry's real storage on it, and a real JdbcCatalog on SQLite (with fault injection) with a local warehouse.
 */
final class Fixture implements AutoCloseable {

    static final String ROOT = "/lakestream";

    final Path dir;
    final MetadataStore metadata;
    final Lakestream log;
    final ExecutorService executor = Executors.newCachedThreadPool();
    final LakestreamSchemaStorage schemaStorage;
    final CatalogConfig catalogConfig;
    final List<FaultyJdbcCatalog> catalogs = new ArrayList<>();

    /** The embedded pair under {@code dir}. */
    Fixture(Path dir) {
        this(
                dir,
                Map.of(
                        "lakestream.objectStore",
                        "filesystem",
                        FileSystemObjectStoreConfig.ROOT,
                        dir.resolve("objects").toString(),
                        FileSystemObjectStoreConfig.FSYNC,
                        "false",
                        "lakestream.metadataStore",
                        "embedded",
                        EmbeddedMetadataStoreConfig.DATA_DIR,
                        dir.resolve("metadata").toString()));
    }

    /** The stores the log properties name (e.g. S3Proxy and Oxia); the catalog and warehouse under {@code dir}. */
    Fixture(Path dir, Map<String, String> logProperties) {
        this.dir = dir;
        this.log = Lakestream.open(new ConfigReader(logProperties));
        this.metadata = log.metadataStore();
        this.schemaStorage = new LakestreamSchemaStorage(metadata, ROOT, executor);
        // LAKESTREAM_ICEBERG_KEEP_TABLES_IN=<empty dir> keeps the catalog and warehouse there after the tests, so
        // an independent reader (pyiceberg) can check them; each test's tables have names of their own.
        String keep = System.getenv("LAKESTREAM_ICEBERG_KEEP_TABLES_IN");
        this.catalogConfig = CatalogConfig.embedded(keep == null || keep.isBlank() ? dir : Path.of(keep));
    }

    /** A new client of the shared catalog (as another process would open). */
    FaultyJdbcCatalog catalog() {
        Catalogs.open(catalogConfig); // creates the database's directory
        FaultyJdbcCatalog c = new FaultyJdbcCatalog();
        c.initialize(catalogConfig.name(), catalogConfig.catalogProperties());
        catalogs.add(c);
        return c;
    }

    /** The stream of a managed ledger, as the broker's storage names it. */
    StreamLog stream(TopicRef topic) {
        String local = topic.partition() < 0 ? topic.topic() : topic.topic() + "-partition-" + topic.partition();
        StreamInfo info = log.catalog()
                .create("managed-ledgers", topic.tenant() + "/" + topic.namespace() + "/persistent/" + local, Map.of())
                .join();
        return log.stream(info);
    }

    /** Appends entries as the managed ledger does: one record per entry. */
    static void append(StreamLog stream, List<ByteBuf> entries) {
        List<java.util.concurrent.CompletableFuture<?>> acks = new ArrayList<>();
        for (ByteBuf e : entries) {
            acks.add(stream.append(1, e));
            e.release();
        }
        acks.forEach(java.util.concurrent.CompletableFuture::join);
    }

    /** Registers a schema version as the broker's registry stores it; returns the version. */
    long registerSchema(TopicRef topic, SchemaType type, String definition, Map<String, String> props) {
        byte[] data = definition.getBytes(StandardCharsets.UTF_8);
        return registerSchema(topic, type, data, props);
    }

    long registerSchema(TopicRef topic, SchemaType type, byte[] data, Map<String, String> props) {
        SchemaInfo info = new SchemaInfo()
                .setSchemaId(topic.schemaId())
                .setUser("test")
                .setType(SchemaInfo.SchemaType.valueOf(type.getValue() + 1))
                .setSchema(data)
                .setTimestamp(System.currentTimeMillis())
                .setDeleted(false);
        props.forEach((k, v) -> info.addProp().setKey(k).setValue(v));
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(data);
            var v = schemaStorage
                    .put(topic.schemaId(), info.toByteArray(), hash)
                    .join();
            return java.nio.ByteBuffer.wrap(v.bytes()).getLong();
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    TopicMaterializer materializer(
            TopicRef topic,
            StreamLog stream,
            org.apache.iceberg.catalog.Catalog catalog,
            MaterializerConfig config,
            DeadLetters deadLetters) {
        return new TopicMaterializer(
                topic,
                stream,
                PositionResolver.managedLedger(metadata, ROOT, stream.id(), topic.partition()),
                new RegistrySchemaSource(metadata, ROOT, executor),
                catalog,
                TableNames.of(topic),
                config,
                deadLetters,
                Clock.systemUTC());
    }

    /** Commits at every poll. */
    static MaterializerConfig eager() {
        return MaterializerConfig.DEFAULT.withCommitInterval(Duration.ofMillis(1));
    }

    /** Polls until caught up, then commits. */
    static void drain(TopicMaterializer m) {
        while (m.poll() > 0) {
            // keep reading
        }
        m.commit();
    }

    static List<Record> rows(Table table) {
        table.refresh();
        List<Record> out = new ArrayList<>();
        try (CloseableIterable<Record> it = IcebergGenerics.read(table).build()) {
            it.forEach(r -> out.add(r.copy()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        out.sort(Comparator.<Record>comparingInt(
                        r -> r.getField("_pulsar_partition") == null ? -1 : (Integer) r.getField("_pulsar_partition"))
                .thenComparingLong(r -> (Long) r.getField("_pulsar_offset"))
                .thenComparingInt(r -> (Integer) r.getField("_pulsar_batch_index")));
        return out;
    }

    /** Parquet files under the warehouse (to find orphans). */
    static long dataFilesOnDisk(Table table) {
        Path wh = Path.of(java.net.URI.create(table.location()));
        if (!Files.exists(wh)) {
            return 0;
        }
        try (Stream<Path> s = Files.walk(wh)) {
            return s.filter(p -> p.toString().endsWith(".parquet")).count();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() throws IOException {
        for (FaultyJdbcCatalog c : catalogs) {
            c.close();
        }
        log.close(); // and the stores it opened
        executor.shutdownNow();
    }
}
