package dev.lakestream.core.config;

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
                .isInstanceOf(ConfigException.class).hasMessageContaining("'k.size' = '99999999999999999999'");
        assertThatThrownBy(() -> of("k.d", "99999999999999999999d").duration("k.d", Duration.ZERO))
                .isInstanceOf(ConfigException.class).hasMessageContaining("is too large a duration");
        assertThatThrownBy(() -> of("k.i", "3000000000").integer("k.i", 1))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("'k.i' = '3000000000' is not an integer between -2147483648 and 2147483647");
    }
}
