package dev.lakestream.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lakestream.core.config.ConfigException;
import dev.lakestream.core.config.ConfigReader;
import dev.lakestream.core.gc.GcConfig;
import dev.lakestream.core.wal.ReaderConfig;
import dev.lakestream.core.wal.WalWriterConfig;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The messages of the checks the config records share ({@code ConfigReader.choice}, {@code ConfigChecks}), word for
 * word as each record gave them before it used the shared check.
 */
class ConfigMessagesTest {

    private static ConfigReader of(String key, String value) {
        return new ConfigReader(Map.of(key, value));
    }

    @Test
    void aChoiceNamesTheAllowedValuesInLowerCaseAndAcceptsAnyCase() {
        assertThatThrownBy(() -> LakestreamConfig.objectStoreKind(of("lakestream.objectStore", "gcs")))
                .isInstanceOf(ConfigException.class)
                .hasMessage("Configuration key 'lakestream.objectStore' = 'gcs' must be 's3' or 'filesystem'");
        assertThatThrownBy(() -> LakestreamConfig.metadataStoreKind(of("lakestream.metadataStore", "zk")))
                .hasMessage("Configuration key 'lakestream.metadataStore' = 'zk' must be 'oxia' or 'embedded'");
        assertThatThrownBy(() -> WalWriterConfig.fromProperties(of("lakestream.writer.whenFull", "drop")))
                .hasMessage("Configuration key 'lakestream.writer.whenFull' = 'drop' must be 'wait' or 'reject'");
        assertThatThrownBy(() -> WalWriterConfig.fromProperties(of("lakestream.writer.flushPolicy", "eager")))
                .hasMessage(
                        "Configuration key 'lakestream.writer.flushPolicy' = 'eager' must be 'adaptive' or 'deadline'");
        assertThat(LakestreamConfig.objectStoreKind(of("lakestream.objectStore", " S3 ")))
                .isEqualTo(LakestreamConfig.ObjectStoreKind.S3);
        assertThat(LakestreamConfig.objectStoreKind(new ConfigReader(Map.of())))
                .isEqualTo(LakestreamConfig.ObjectStoreKind.FILESYSTEM);
        assertThat(LakestreamConfig.metadataStoreKind(new ConfigReader(Map.of())))
                .isEqualTo(LakestreamConfig.MetadataStoreKind.EMBEDDED);
        WalWriterConfig defaults = WalWriterConfig.fromProperties(new ConfigReader(Map.of()));
        assertThat(defaults.whenFull()).isEqualTo(WalWriterConfig.WhenFull.WAIT);
        assertThat(defaults.flushPolicy()).isEqualTo(WalWriterConfig.FlushPolicy.ADAPTIVE);
        assertThat(WalWriterConfig.fromProperties(of("lakestream.writer.whenFull", "Reject"))
                        .whenFull())
                .isEqualTo(WalWriterConfig.WhenFull.REJECT);
    }

    @Test
    void rangeChecksNameTheKeyAndTheValueAsBefore() {
        assertThatThrownBy(() -> LakestreamConfig.fromProperties(of("lakestream.reader.tailPollInterval", "0")))
                .hasMessage("Configuration key 'lakestream.reader.tailPollInterval' = '0ms' must be positive");
        assertThatThrownBy(() -> new LakestreamConfig(
                        "/x",
                        WalWriterConfig.DEFAULT,
                        ReaderConfig.DEFAULT,
                        Duration.ofMillis(50),
                        Duration.ofSeconds(-2)))
                .hasMessage("Configuration key 'lakestream.cursor.persistInterval' = '-2s' must not be negative");
        assertThatThrownBy(() -> new ReaderConfig(-1, 0, 0, 0))
                .hasMessage("Configuration key 'lakestream.reader.cacheSize' = '-1' must not be negative");
        assertThatThrownBy(() -> new ReaderConfig(0, -5, 0, 0))
                .hasMessage("Configuration key 'lakestream.reader.wholeObjectMaxSize' = '-5' must not be negative");
        assertThatThrownBy(() -> new ReaderConfig(0, 0, -3, 0))
                .hasMessage("Configuration key 'lakestream.reader.prefetchRecords' = '-3' must not be negative");
        assertThatThrownBy(() -> GcConfig.DEFAULT.withSafetyMargin(Duration.ofMinutes(-1)))
                .hasMessage("Configuration key 'lakestream.gc.safetyMargin' = '-1m' must not be negative");
    }
}
