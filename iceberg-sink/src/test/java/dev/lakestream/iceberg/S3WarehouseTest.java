package dev.lakestream.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lakestream.core.StreamLog;
import dev.lakestream.testkit.OxiaServerExtension;
import dev.lakestream.testkit.S3ProxyExtension;
import java.util.Map;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The deployment shape: the log on S3 (S3Proxy) and Oxia, the warehouse on S3 too through Iceberg's S3FileIO,
 * configured with the log's own S3 settings.
 */
class S3WarehouseTest {

    @RegisterExtension
    static final S3ProxyExtension S3 = new S3ProxyExtension();

    @RegisterExtension
    static final OxiaServerExtension OXIA = new OxiaServerExtension();

    @TempDir
    java.nio.file.Path dir;

    @Test
    void aTopicIsMaterializedIntoATableOnS3() throws Exception {
        String bucket = S3.createBucket();
        String logBucket = S3.createBucket();
        Map<String, String> s3 = Map.of(
                "lakestream.s3.endpoint",
                S3.endpoint().toString(),
                "lakestream.s3.region",
                S3.region(),
                "lakestream.s3.pathStyleAccess",
                "true",
                "lakestream.s3.accessKeyId",
                S3.accessKey(),
                "lakestream.s3.secretAccessKey",
                S3.secretKey());
        Map<String, String> logProps = new java.util.HashMap<>(s3);
        logProps.putAll(Map.of(
                "lakestream.objectStore",
                "s3",
                "lakestream.s3.bucket",
                logBucket,
                "lakestream.metadataStore",
                "oxia",
                "lakestream.oxia.serviceAddress",
                OXIA.serviceAddress()));
        try (Fixture f = new Fixture(dir, logProps)) {
            Map<String, String> props = new java.util.HashMap<>(logProps);
            props.put("lakestream.iceberg.catalog.uri", "jdbc:sqlite:" + dir.resolve("s3catalog/catalog.db"));
            props.put("lakestream.iceberg.warehouse", "s3://" + bucket + "/warehouse");
            CatalogConfig config = CatalogConfig.fromProperties(props, dir);
            assertThat(config.catalogProperties())
                    .containsEntry("io-impl", "org.apache.iceberg.aws.s3.S3FileIO")
                    .containsEntry("s3.endpoint", S3.endpoint().toString());
            Catalog catalog = Catalogs.open(config);
            try {
                TopicRef topic = TopicRef.parse("persistent://public/default/on-s3");
                StreamLog stream = f.stream(topic);
                Fixture.append(stream, ExactlyOnceTest.entries(0, 6));
                TopicMaterializer m = f.materializer(topic, stream, catalog, Fixture.eager(), DeadLetters.log());
                m.open();
                Fixture.drain(m);
                assertThat(m.status().committedOffset()).isEqualTo(6);
                Table table = catalog.loadTable(TableNames.of(topic));
                assertThat(table.location()).startsWith("s3://" + bucket + "/warehouse/");
                ExactlyOnceTest.assertExactly(table, 6);
                m.close();

                // A second process takes over after more entries: it continues from the table, exactly once.
                Fixture.append(stream, ExactlyOnceTest.entries(6, 3));
                TopicMaterializer next = f.materializer(topic, stream, catalog, Fixture.eager(), DeadLetters.log());
                next.open();
                assertThat(next.status().nextOffset()).isEqualTo(6);
                Fixture.drain(next);
                ExactlyOnceTest.assertExactly(catalog.loadTable(TableNames.of(topic)), 9);
                next.close();
            } finally {
                ((AutoCloseable) catalog).close();
            }
        }
    }
}
