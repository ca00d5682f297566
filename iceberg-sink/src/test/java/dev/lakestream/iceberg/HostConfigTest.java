package dev.lakestream.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lakestream.core.config.ConfigException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HostConfigTest {

    @Test
    void defaultsAndKeys() {
        HostConfig d = HostConfig.fromProperties(Map.of());
        assertThat(d).isEqualTo(HostConfig.DEFAULT);
        assertThat(d.enabled()).isFalse();
        assertThat(d.retainUntilMaterialized()).isTrue();
        HostConfig c = HostConfig.fromProperties(Map.of(
                "lakestream.iceberg.enabled",
                "true",
                "lakestream.iceberg.threads",
                "4",
                "lakestream.iceberg.maintenanceInterval",
                "0s",
                "lakestream.iceberg.topicsEnabledByDefault",
                "true"));
        assertThat(c.enabled()).isTrue();
        assertThat(c.threads()).isEqualTo(4);
        assertThat(c.maintenanceInterval()).isEqualTo(Duration.ZERO);
        assertThat(new IcebergConfigKeys().keys()).containsAll(HostConfig.KEYS);
    }

    @Test
    void badValuesNameTheirKey() {
        assertThatThrownBy(() -> HostConfig.fromProperties(Map.of("lakestream.iceberg.threads", "0")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("lakestream.iceberg.threads");
        assertThatThrownBy(() -> HostConfig.fromProperties(Map.of("lakestream.iceberg.topicCheckInterval", "0s")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("lakestream.iceberg.topicCheckInterval");
    }

    @Test
    void theTopicPropertyWinsOverTheNamespacesWhichWinsOverTheDefault() {
        HostConfig off = HostConfig.DEFAULT;
        HostConfig on = HostConfig.fromProperties(Map.of("lakestream.iceberg.topicsEnabledByDefault", "true"));
        assertThat(off.materializes(null, null, "t")).isFalse();
        assertThat(on.materializes(null, null, "t")).isTrue();
        assertThat(off.materializes(null, "enabled", "t")).isTrue();
        assertThat(on.materializes(null, "disabled", "t")).isFalse();
        assertThat(off.materializes("enabled", "disabled", "t")).isTrue();
        assertThat(off.materializes("disabled", "enabled", "t")).isFalse();
        assertThatThrownBy(() -> off.materializes("yes please", null, "persistent://a/b/c"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("topic property lakestream.iceberg of persistent://a/b/c is 'yes please'");
    }

    @Test
    void aHostRefusesIcebergKeysThatAreNotTheModules() {
        IcebergConfigKeys.requireKnown(List.of(
                "lakestream.iceberg.enabled",
                "lakestream.iceberg.table.property.x",
                "lakestream.s3.bucket",
                "brokerServicePort"));
        assertThatThrownBy(() -> IcebergConfigKeys.requireKnown(List.of("lakestream.iceberg.enabeld")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("lakestream.iceberg.enabeld");
    }
}
