package dev.lakestream.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lakestream.core.config.ConfigException;
import dev.lakestream.core.config.ConfigKeys;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class IcebergConfigKeysTest {

    @Test
    void everyIcebergKeyDocumentedIsKnownToTheCoresRegistry() throws IOException {
        String doc = Files.readString(Path.of("../docs/configuration.md"));
        List<String> documented = Pattern.compile("^\\| `(lakestream\\.iceberg\\.[A-Za-z0-9.]+)`", Pattern.MULTILINE)
                .matcher(doc)
                .results()
                .map(r -> r.group(1))
                .toList();
        assertThat(documented).hasSizeGreaterThanOrEqualTo(10);
        assertThat(documented).allMatch(ConfigKeys::isKnown);
        assertThat(ConfigKeys.isKnown("lakestream.iceberg.table.property.write.format.default"))
                .isTrue();
    }

    @Test
    void everyStandaloneToolKeyDocumentedIsKnownToTheCoresRegistry() throws IOException {
        String doc = Files.readString(Path.of("../docs/configuration.md"));
        List<String> documented = Pattern.compile(
                        "^\\| `(lakestream\\.materialize\\.[A-Za-z0-9.]+)`", Pattern.MULTILINE)
                .matcher(doc)
                .results()
                .map(r -> r.group(1))
                .toList();
        assertThat(documented)
                .containsExactlyInAnyOrderElementsOf(new dev.lakestream.iceberg.tool.ToolConfigKeys().keys())
                .allMatch(ConfigKeys::isKnown);
        assertThatThrownBy(() -> ConfigKeys.requireKnown(List.of("lakestream.materialize.topic")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("did you mean lakestream.materialize.topics?");
    }

    @Test
    void aMisspeltIcebergKeyIsStillRefused() {
        assertThatThrownBy(() -> ConfigKeys.requireKnown(List.of("lakestream.iceberg.comitInterval")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("did you mean lakestream.iceberg.commitInterval?");
    }
}
