package dev.lakestream.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lakestream.core.config.ConfigException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NamesAndConfigTest {

    @Test
    void tableNamesAreEscapedReversiblyAndNeverCollide() {
        assertThat(TableNames.of(TopicRef.parse("persistent://public/default/orders-v1"))
                        .toString())
                .isEqualTo("public.default.orders_x2dv1");
        assertThat(TableNames.escape("my_topic")).isEqualTo("my__topic");
        assertThat(TableNames.escape("my-topic")).isNotEqualTo(TableNames.escape("my_x2dtopic"));
        assertThat(TableNames.escape("a.b/c é")).isEqualTo("a_x2eb_x2fc_x20_xc3_xa9");
        for (String s : new String[] {"orders-v1", "my_topic", "a.b/c é", "__x2d", "日本"}) {
            assertThat(TableNames.unescape(TableNames.escape(s))).isEqualTo(s);
        }
        assertThatThrownBy(() -> TableNames.unescape("a_b"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("a_b");
    }

    @Test
    void topicsComeFromManagedLedgerNamesWithTheirPartition() {
        TopicRef p = TopicRef.fromManagedLedgerName("acme/ns/persistent/my%20topic-partition-3");
        assertThat(p).isEqualTo(new TopicRef("acme", "ns", "my topic", 3));
        assertThat(p.schemaId()).isEqualTo("acme/ns/my topic");
        assertThat(TopicRef.parse("persistent://a/b/c")).isEqualTo(new TopicRef("a", "b", "c", -1));
        assertThatThrownBy(() -> TopicRef.fromManagedLedgerName("a/b/non-persistent/c"))
                .hasMessageContaining("a/b/non-persistent/c");
        assertThatThrownBy(() -> TopicRef.parse("non-persistent://a/b/c")).hasMessageContaining("persistent://");
    }

    @Test
    void configurationHasDocumentedDefaultsAndRefusesBadValues() {
        CatalogConfig c = CatalogConfig.fromProperties(Map.of(), Path.of("/data"));
        assertThat(c.type()).isEqualTo("jdbc");
        assertThat(c.uri()).isEqualTo("jdbc:sqlite:/data/iceberg/catalog.db");
        assertThat(c.warehouse()).isEqualTo("file:///data/iceberg/warehouse");
        assertThat(c.catalogProperties()).containsEntry("io-impl", "dev.lakestream.iceberg.io.LocalFileIO");
        CatalogConfig rest = CatalogConfig.fromProperties(
                Map.of(
                        "lakestream.iceberg.catalog.type",
                        "rest",
                        "lakestream.iceberg.catalog.uri",
                        "http://127.0.0.1:8181",
                        "lakestream.iceberg.catalog.property.token",
                        "t"),
                Path.of("/data"));
        assertThat(rest.catalogProperties()).containsEntry("type", "rest").containsEntry("token", "t");
        assertThatThrownBy(() -> CatalogConfig.fromProperties(
                        Map.of("lakestream.iceberg.catalog.type", "hive"), Path.of("/data")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("hive");

        MaterializerConfig m = MaterializerConfig.fromProperties(Map.of());
        assertThat(m).isEqualTo(MaterializerConfig.DEFAULT);
        assertThat(m.commitInterval()).isEqualTo(Duration.ofSeconds(10));
        assertThat(m.targetFileSizeBytes()).isEqualTo(128L << 20);
        MaterializerConfig set = MaterializerConfig.fromProperties(Map.of(
                "lakestream.iceberg.commitInterval",
                "2s",
                "lakestream.iceberg.targetFileSize",
                "8MiB",
                "lakestream.iceberg.table.property.write.parquet.compression-codec",
                "snappy"));
        assertThat(set.commitInterval()).isEqualTo(Duration.ofSeconds(2));
        assertThat(set.targetFileSizeBytes()).isEqualTo(8L << 20);
        assertThat(set.tableProperties()).containsEntry("write.parquet.compression-codec", "snappy");
        assertThatThrownBy(() -> MaterializerConfig.fromProperties(Map.of("lakestream.iceberg.targetFileSize", "10")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("lakestream.iceberg.targetFileSize");
    }
}
