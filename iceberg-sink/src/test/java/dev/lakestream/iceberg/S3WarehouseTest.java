package dev.lakestream.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lakestream.core.StreamLog;
import dev.lakestream.testkit.S3ProxyExtension;
import java.util.Map;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** A warehouse on S3 (a real S3Proxy, signatures checked) through Iceberg's S3FileIO, configured like the log. */
class S3WarehouseTest {

    @RegisterExtension
    static final S3ProxyExtension S3 = new S3ProxyExtension();

    @TempDir
    java.nio.file.Path dir;

    @Test
    void aTopicIsMaterializedIntoATableOnS3() throws Exception {
        String bucket = S3.createBucket();
        try (Fixture f = new Fixture(dir)) {
            CatalogConfig config = CatalogConfig.fromProperties(Map.of(
                    "lakestream.iceberg.catalog.uri", "jdbc:sqlite:" + dir.resolve("s3catalog/catalog.db"),
                    "lakestream.iceberg.warehouse", "s3://" + bucket + "/warehouse",
                    "lakestream.s3.endpoint", S3.endpoint().toString(),
                    "lakestream.s3.region", S3.region(),
                    "lakestream.s3.pathStyleAccess", "true",
                    "lakestream.s3.accessKeyId", S3.accessKey(),
                    "lakestream.s3.secretAccessKey", S3.secretKey()), dir);
            assertThat(config.catalogProperties()).containsEntry("io-impl", "org.apache.iceberg.aws.s3.S3FileIO")
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
            } finally {
                ((AutoCloseable) catalog).close();
            }
        }
    }
}
