package dev.lakestream.core.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lakestream.core.config.ConfigException;
import dev.lakestream.core.config.ConfigReader;
import dev.lakestream.core.metadata.embedded.EmbeddedMetadataStoreConfig;
import dev.lakestream.core.metadata.oxia.OxiaMetadataStoreConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The typed configs of both metadata stores: defaults, parsing, and errors that name the key. */
class MetadataStoreConfigTest {

    @Test
    void oxiaDefaults() {
        OxiaMetadataStoreConfig c = OxiaMetadataStoreConfig.fromProperties(
                new ConfigReader(Map.of("lakestream.oxia.serviceAddress", "oxia-1:6648")));
        assertThat(c.serviceAddress()).isEqualTo("oxia-1:6648");
        assertThat(c.namespace()).isEqualTo("default");
        assertThat(c.requestTimeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(c.sessionTimeout()).isEqualTo(Duration.ofSeconds(15));
        assertThat(c.connectTimeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(c.address()).isEqualTo("oxia://oxia-1:6648/default");
    }

    @Test
    void oxiaAllKeys() {
        OxiaMetadataStoreConfig c = OxiaMetadataStoreConfig.fromProperties(new ConfigReader(Map.of(
                "lakestream.oxia.serviceAddress", " [::1]:7000 ",
                "lakestream.oxia.namespace", "lake",
                "lakestream.oxia.requestTimeout", "5s",
                "lakestream.oxia.sessionTimeout", "2500ms",
                "lakestream.oxia.connectTimeout", "1m")));
        assertThat(c)
                .isEqualTo(new OxiaMetadataStoreConfig(
                        "[::1]:7000", "lake", Duration.ofSeconds(5), Duration.ofMillis(2500), Duration.ofMinutes(1)));
    }

    @Test
    void oxiaErrorsNameTheKey() {
        assertKey(Map.of(), OxiaMetadataStoreConfig.SERVICE_ADDRESS);
        for (String bad : new String[] {"localhost", "oxia://h:1", "h:", "h:abc", "h:0", "h:70000", "::1:80"}) {
            assertKey(Map.of(OxiaMetadataStoreConfig.SERVICE_ADDRESS, bad), OxiaMetadataStoreConfig.SERVICE_ADDRESS);
        }
        assertKey(
                Map.of(OxiaMetadataStoreConfig.SERVICE_ADDRESS, "h:1", OxiaMetadataStoreConfig.REQUEST_TIMEOUT, "soon"),
                OxiaMetadataStoreConfig.REQUEST_TIMEOUT);
        assertKey(
                Map.of(OxiaMetadataStoreConfig.SERVICE_ADDRESS, "h:1", OxiaMetadataStoreConfig.REQUEST_TIMEOUT, "0"),
                OxiaMetadataStoreConfig.REQUEST_TIMEOUT);
        assertKey(
                Map.of(OxiaMetadataStoreConfig.SERVICE_ADDRESS, "h:1", OxiaMetadataStoreConfig.SESSION_TIMEOUT, "1s"),
                OxiaMetadataStoreConfig.SESSION_TIMEOUT);
        assertKey(
                Map.of(OxiaMetadataStoreConfig.SERVICE_ADDRESS, "h:1", OxiaMetadataStoreConfig.SESSION_TIMEOUT, "6m"),
                OxiaMetadataStoreConfig.SESSION_TIMEOUT);
        assertKey(
                Map.of(OxiaMetadataStoreConfig.SERVICE_ADDRESS, "h:1", OxiaMetadataStoreConfig.CONNECT_TIMEOUT, "-1s"),
                OxiaMetadataStoreConfig.CONNECT_TIMEOUT);
    }

    @Test
    void embeddedDefaultsAndKeys() {
        EmbeddedMetadataStoreConfig c = EmbeddedMetadataStoreConfig.fromProperties(
                new ConfigReader(Map.of("lakestream.embedded.dataDir", "data/md")));
        assertThat(c.dataDir()).isEqualTo(Path.of("data/md").toAbsolutePath().normalize());
        assertThat(c.sync()).isTrue();
        assertThat(c.address()).isEqualTo("embedded:" + c.dataDir());
        assertThat(EmbeddedMetadataStoreConfig.fromProperties(new ConfigReader(
                                Map.of("lakestream.embedded.dataDir", "/md", "lakestream.embedded.sync", "false")))
                        .sync())
                .isFalse();
    }

    @Test
    void embeddedErrorsNameTheKey() {
        assertThatThrownBy(() -> EmbeddedMetadataStoreConfig.fromProperties(new ConfigReader(Map.of())))
                .isInstanceOfSatisfying(
                        ConfigException.class,
                        e -> assertThat(e.key()).isEqualTo(EmbeddedMetadataStoreConfig.DATA_DIR));
        assertThatThrownBy(() -> EmbeddedMetadataStoreConfig.fromProperties(new ConfigReader(
                        Map.of("lakestream.embedded.dataDir", "/md", "lakestream.embedded.sync", "maybe"))))
                .isInstanceOfSatisfying(
                        ConfigException.class, e -> assertThat(e.key()).isEqualTo(EmbeddedMetadataStoreConfig.SYNC));
    }

    private static void assertKey(Map<String, String> props, String key) {
        assertThatThrownBy(() -> OxiaMetadataStoreConfig.fromProperties(new ConfigReader(props)))
                .as("%s", props)
                .isInstanceOfSatisfying(ConfigException.class, e -> {
                    assertThat(e.key()).isEqualTo(key);
                    assertThat(e).hasMessageContaining(key);
                });
    }
}
