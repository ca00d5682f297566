package dev.lakestream.core.objectstore.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lakestream.core.config.ConfigException;
import dev.lakestream.core.config.ConfigReader;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FileSystemObjectStoreConfigTest {

    @Test
    void defaults() {
        FileSystemObjectStoreConfig c = FileSystemObjectStoreConfig.fromProperties(
                new ConfigReader(Map.of("lakestream.fs.root", "/var/lib/lakestream/objects")));
        assertThat(c.root()).isEqualTo(Path.of("/var/lib/lakestream/objects"));
        assertThat(c.createRoot()).isTrue();
        assertThat(c.fsync()).isTrue();
        assertThat(c.ioThreads()).isEqualTo(4);
    }

    @Test
    void allKeys() {
        FileSystemObjectStoreConfig c = FileSystemObjectStoreConfig.fromProperties(new ConfigReader(Map.of(
                "lakestream.fs.root", "/data/../data/objects",
                "lakestream.fs.createRoot", "false",
                "lakestream.fs.fsync", "off",
                "lakestream.fs.ioThreads", "8")));
        assertThat(c).isEqualTo(new FileSystemObjectStoreConfig(Path.of("/data/objects"), false, false, 8));
    }

    @Test
    void errorsNameTheKey() {
        assertThatThrownBy(() -> FileSystemObjectStoreConfig.fromProperties(new ConfigReader(Map.of())))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("lakestream.fs.root");
        assertThatThrownBy(() -> FileSystemObjectStoreConfig.fromProperties(
                        new ConfigReader(Map.of("lakestream.fs.root", "/x", "lakestream.fs.ioThreads", "0"))))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("lakestream.fs.ioThreads");
        assertThatThrownBy(() -> FileSystemObjectStoreConfig.fromProperties(
                        new ConfigReader(Map.of("lakestream.fs.root", "/x", "lakestream.fs.fsync", "maybe"))))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("lakestream.fs.fsync");
    }
}
