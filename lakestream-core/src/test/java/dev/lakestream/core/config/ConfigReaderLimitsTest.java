package dev.lakestream.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Values out of a type's range are refused naming the key, the value and the form expected. */
class ConfigReaderLimitsTest {

    private static ConfigReader of(String key, String value) {
        return new ConfigReader(Map.of(key, value));
    }

    @Test
    void overflowingValuesNameTheKeyAndTheValue() {
        assertThatThrownBy(() -> of("k.size", "99999999999GiB").bytes("k.size", 1))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("'k.size' = '99999999999GiB' is too large a byte size");
        assertThatThrownBy(() -> of("k.size", "99999999999999999999").bytes("k.size", 1))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("'k.size' = '99999999999999999999'");
        assertThatThrownBy(() -> of("k.d", "99999999999999999999d").duration("k.d", Duration.ZERO))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("is too large a duration");
        assertThatThrownBy(() -> of("k.i", "3000000000").integer("k.i", 1))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("'k.i' = '3000000000' is not an integer between -2147483648 and 2147483647");
    }

    @Test
    void durationsInMessagesAreWrittenAsTheyAreConfigured() {
        assertThat(ConfigReader.format(Duration.ZERO)).isEqualTo("0ms");
        assertThat(ConfigReader.format(Duration.ofMillis(250))).isEqualTo("250ms");
        assertThat(ConfigReader.format(Duration.ofSeconds(90))).isEqualTo("90s");
        assertThat(ConfigReader.format(Duration.ofMinutes(-5))).isEqualTo("-5m");
        assertThat(ConfigReader.format(Duration.ofDays(2))).isEqualTo("2d");
        assertThat(ConfigReader.format(Duration.ofNanos(5))).isEqualTo("PT0.000000005S");
        assertThatThrownBy(() -> dev.lakestream.core.gc.GcConfig.fromProperties(of("lakestream.gc.interval", "0s")))
                .isInstanceOf(ConfigException.class)
                .hasMessage("Configuration key 'lakestream.gc.interval' = '0ms' must be positive");
        assertThatThrownBy(() -> dev.lakestream.core.gc.GcConfig.fromProperties(new ConfigReader(
                        Map.of("lakestream.gc.orphanDelay", "1m", "lakestream.gc.commitWindow", "10m"))))
                .hasMessage("Configuration key 'lakestream.gc.orphanDelay' = '1m' must be at least "
                        + "lakestream.gc.commitWindow (10m)");
    }
}
