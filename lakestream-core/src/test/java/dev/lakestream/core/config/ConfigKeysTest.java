package dev.lakestream.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lakestream.core.Lakestream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigKeysTest {

    @Test
    void knowsTheKeysOfEveryTypedConfigIncludingTheWritersFlushPolicy() {
        assertThat(ConfigKeys.known())
                .contains(
                        "lakestream.objectStore",
                        "lakestream.metadataStore",
                        "lakestream.metadata.root",
                        "lakestream.reader.tailPollInterval",
                        "lakestream.cursor.persistInterval",
                        "lakestream.writer.flushDelay",
                        "lakestream.writer.flushPolicy",
                        "lakestream.writer.linger",
                        "lakestream.writer.maxPutsPerSecond",
                        "lakestream.reader.cacheSize",
                        "lakestream.gc.commitWindow",
                        "lakestream.s3.secretAccessKey",
                        "lakestream.fs.root",
                        "lakestream.oxia.sessionTimeout",
                        "lakestream.embedded.sync");
        // Object metadata names and test-harness properties are not configuration keys.
        assertThat(ConfigKeys.known())
                .doesNotContain("lakestream.indexLength")
                .allMatch(k -> k.startsWith(ConfigKeys.PREFIX) && !k.startsWith("lakestream.tests."));
    }

    @Test
    void everyKeyDocumentedInConfigurationMdIsKnownAndEveryKnownKeyIsDocumented() throws IOException {
        String doc = Files.readString(Path.of("../docs/configuration.md"));
        Matcher m = Pattern.compile("^\\| `(lakestream\\.[A-Za-z0-9.]+)`", Pattern.MULTILINE)
                .matcher(doc);
        // The Iceberg materializer's and its tools' keys are registered by their own module (ConfigKeySets): checked
        // there.
        Set<String> documented = m.results()
                .map(r -> r.group(1))
                .filter(k -> !k.startsWith("lakestream.iceberg.") && !k.startsWith("lakestream.materialize."))
                .collect(Collectors.toSet());
        assertThat(documented).hasSizeGreaterThan(30);
        assertThat(ConfigKeys.known()).containsAll(documented);
        // And the other way: every key the core's packages register is documented.
        assertThat(documented).containsAll(ConfigKeys.known());
    }

    @Test
    void aMisspeltKeyIsRefusedNamingItAndTheNearestKnownKey() {
        assertThatThrownBy(() -> ConfigKeys.requireKnown(
                        List.of("lakestream.writer.flushDelayy", "brokerPort", "lakestream.writer.flushDelay")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(
                        "unknown key lakestream.writer.flushDelayy " + "(did you mean lakestream.writer.flushDelay?)")
                .satisfies(
                        e -> assertThat(((ConfigException) e).keys()).containsExactly("lakestream.writer.flushDelayy"));
    }

    @Test
    void everyUnknownKeyIsNamedAndOnlyCloseKeysAreSuggested() {
        assertThatThrownBy(() -> ConfigKeys.requireKnown(List.of(
                        "lakestream.s3.secretAccesKey", "lakestream.somethingElseEntirely", "lakestream.OBJECTSTORE")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(
                        "unknown key lakestream.s3.secretAccesKey " + "(did you mean lakestream.s3.secretAccessKey?)")
                .hasMessageContaining(
                        "unknown key lakestream.somethingElseEntirely (known lakestream.* keys are listed")
                .hasMessageContaining("unknown key lakestream.OBJECTSTORE (did you mean lakestream.objectStore?)")
                .satisfies(e -> assertThat(((ConfigException) e).keys()).hasSize(3));
        assertThat(ConfigKeys.nearest("lakestream.somethingElseEntirely")).isEmpty();
        assertThat(ConfigKeys.nearest("lakestream.gc.intreval")).contains("lakestream.gc.interval");
    }

    @Test
    void icebergKeysAreLeftToTheirModuleWhenItIsNotOnThisClassPath() {
        // As in a broker: the storage in lib/ cannot see the plugin NAR that reads (and checks) these keys.
        ConfigKeys.requireKnown(List.of("lakestream.iceberg.enabled", "lakestream.iceberg.anything"));
        assertThatThrownBy(() -> ConfigKeys.requireKnown(List.of("lakestream.icebreg.enabled")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("unknown key lakestream.icebreg.enabled");
    }

    @Test
    void knownAndForeignKeysPass() {
        ConfigKeys.requireKnown(List.copyOf(ConfigKeys.known()));
        ConfigKeys.requireKnown(List.of("brokerServicePort", "managedLedgerStorageClassName", "lakestreamStorageMode"));
    }

    @Test
    void editDistanceCountsInsertionsDeletionsAndSubstitutions() {
        assertThat(ConfigKeys.editDistance("flushDelay", "flushDelay")).isZero();
        assertThat(ConfigKeys.editDistance("flushDelayy", "flushDelay")).isEqualTo(1);
        assertThat(ConfigKeys.editDistance("flshDelay", "flushDelay")).isEqualTo(1);
        assertThat(ConfigKeys.editDistance("flushDelai", "flushDelay")).isEqualTo(1);
        assertThat(ConfigKeys.editDistance("kitten", "sitting")).isEqualTo(3);
        assertThat(ConfigKeys.editDistance("", "abc")).isEqualTo(3);
    }

    @Test
    void lakestreamOpenRefusesAnUnknownKeyBeforeOpeningAnyStore(@TempDir Path dir) {
        ConfigReader r = new ConfigReader(Map.of(
                "lakestream.fs.root", dir.resolve("objects").toString(),
                "lakestream.embedded.dataDir", dir.resolve("meta").toString(),
                "lakestream.writer.flushDelayy", "5ms"));
        assertThatThrownBy(() -> Lakestream.open(r))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(
                        "unknown key lakestream.writer.flushDelayy " + "(did you mean lakestream.writer.flushDelay?)");
        assertThat(dir.resolve("objects")).doesNotExist();
        assertThat(dir.resolve("meta")).doesNotExist();
    }
}
