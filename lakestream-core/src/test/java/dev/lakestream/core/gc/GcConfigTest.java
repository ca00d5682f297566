package dev.lakestream.core.gc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lakestream.core.config.ConfigException;
import dev.lakestream.core.config.ConfigReader;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class GcConfigTest {

    @Test
    void readsEveryKeyAndDefaultsTheRest() {
        assertThat(GcConfig.fromProperties(new ConfigReader(Map.of()))).isEqualTo(GcConfig.DEFAULT);
        assertThat(GcConfig.DEFAULT)
                .isEqualTo(new GcConfig(
                        true,
                        Duration.ofMinutes(5),
                        1000,
                        Duration.ofHours(1),
                        Duration.ofHours(1),
                        Duration.ofMinutes(10)));

        GcConfig c = GcConfig.fromProperties(new ConfigReader(Map.of(
                "lakestream.gc.enabled", "false",
                "lakestream.gc.interval", "30s",
                "lakestream.gc.maxDeletesPerSecond", "50",
                "lakestream.gc.safetyMargin", "2h",
                "lakestream.gc.orphanDelay", "3h",
                "lakestream.gc.commitWindow", "20m")));

        assertThat(c)
                .isEqualTo(new GcConfig(
                        false,
                        Duration.ofSeconds(30),
                        50,
                        Duration.ofHours(2),
                        Duration.ofHours(3),
                        Duration.ofMinutes(20)));
        assertThat(c.deleteBatchSize()).isEqualTo(5);
        assertThat(GcConfig.DEFAULT.deleteBatchSize()).isEqualTo(100);
        assertThat(GcConfig.DEFAULT.withMaxDeletesPerSecond(5).deleteBatchSize())
                .isEqualTo(1);
        assertThat(GcConfig.DEFAULT.withMaxDeletesPerSecond(1_000_000).deleteBatchSize())
                .isEqualTo(1000);
    }

    @Test
    void badValuesAreRefusedNamingTheKey() {
        assertRefused("lakestream.gc.interval", "0s", "'0ms' must be positive");
        assertRefused("lakestream.gc.interval", "soon", "soon");
        assertRefused("lakestream.gc.maxDeletesPerSecond", "0", "'0'");
        assertRefused("lakestream.gc.maxDeletesPerSecond", "many", "many");
        assertRefused("lakestream.gc.enabled", "maybe", "maybe");
        assertThatThrownBy(() -> GcConfig.fromProperties(new ConfigReader(Map.of("lakestream.gc.orphanDelay", "5m"))))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("lakestream.gc.orphanDelay")
                .hasMessageContaining("lakestream.gc.commitWindow");
    }

    private static void assertRefused(String key, String value, String shownAs) {
        assertThatThrownBy(() -> GcConfig.fromProperties(new ConfigReader(Map.of(key, value))))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(key)
                .hasMessageContaining(shownAs);
    }
}
