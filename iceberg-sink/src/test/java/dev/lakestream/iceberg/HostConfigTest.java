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
        assertThat(c.upkeep().maintenanceInterval()).isEqualTo(Duration.ZERO);
        assertThat(c.upkeep()).isEqualTo(UpkeepConfig.fromProperties(Map.of(UpkeepConfig.MAINTENANCE_INTERVAL, "0s")));
        assertThat(new IcebergConfigKeys().keys()).containsAll(HostConfig.KEYS).containsAll(UpkeepConfig.KEYS);
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
