package dev.lakestream.core.wal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lakestream.core.LakestreamConfig;
import dev.lakestream.core.config.ConfigException;
import dev.lakestream.core.config.ConfigReader;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WalWriterConfigTest {

    @Test
    void defaultsAreTheAdaptivePolicyWithAShortLingerAndThePutRateCap() {
        WalWriterConfig c = WalWriterConfig.fromProperties(new ConfigReader(Map.of()));
        assertThat(c).isEqualTo(WalWriterConfig.DEFAULT);
        assertThat(c.flushPolicy()).isEqualTo(WalWriterConfig.FlushPolicy.ADAPTIVE);
        assertThat(c.linger()).isLessThanOrEqualTo(Duration.ofMillis(2));
        assertThat(c.maxPutsPerSecond()).isEqualTo(50);
        assertThat(c.minPutIntervalNanos()).isEqualTo(20_000_000L);
    }

    @Test
    void keysAreRead() {
        WalWriterConfig c = WalWriterConfig.fromProperties(new ConfigReader(Map.of(
                "lakestream.writer.flushPolicy", "Deadline",
                "lakestream.writer.linger", "0ms",
                "lakestream.writer.maxPutsPerSecond", "7")));
        assertThat(c.flushPolicy()).isEqualTo(WalWriterConfig.FlushPolicy.DEADLINE);
        assertThat(c.linger()).isZero();
        assertThat(c.maxPutsPerSecond()).isEqualTo(7);
    }

    @Test
    void theCapDefaultsHigherOnTheFilesystemStoreWhoseWritesHaveNoPrice() {
        assertThat(LakestreamConfig.fromProperties(new ConfigReader(Map.of("lakestream.objectStore", "filesystem")))
                        .writer()
                        .maxPutsPerSecond())
                .isEqualTo(WalWriterConfig.FILESYSTEM_MAX_PUTS_PER_SECOND);
        assertThat(LakestreamConfig.fromProperties(new ConfigReader(Map.of("lakestream.objectStore", "s3")))
                        .writer()
                        .maxPutsPerSecond())
                .isEqualTo(WalWriterConfig.DEFAULT_MAX_PUTS_PER_SECOND);
        assertThat(LakestreamConfig.fromProperties(new ConfigReader(Map.of(
                                "lakestream.objectStore", "filesystem", "lakestream.writer.maxPutsPerSecond", "20")))
                        .writer()
                        .maxPutsPerSecond())
                .isEqualTo(20);
    }

    @Test
    void badValuesNameTheirKey() {
        assertKey(Map.of("lakestream.writer.flushPolicy", "sometimes"), "lakestream.writer.flushPolicy");
        assertKey(Map.of("lakestream.writer.maxPutsPerSecond", "0"), "lakestream.writer.maxPutsPerSecond");
        assertKey(Map.of("lakestream.writer.linger", "200ms"), "lakestream.writer.linger");
        assertKey(Map.of("lakestream.writer.whenFull", "drop"), "lakestream.writer.whenFull");
    }

    private static void assertKey(Map<String, String> props, String key) {
        assertThatThrownBy(() -> WalWriterConfig.fromProperties(new ConfigReader(props)))
                .isInstanceOfSatisfying(
                        ConfigException.class, e -> assertThat(e.key()).isEqualTo(key));
    }
}
