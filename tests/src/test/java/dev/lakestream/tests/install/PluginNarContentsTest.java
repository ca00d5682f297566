package dev.lakestream.tests.install;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipInputStream;
import org.junit.jupiter.api.Test;

/**
 * The broker plugin's NAR ({@code plugins/lakestream-*.nar}, module pulsar-protocol-handler) against a stock
 * Pulsar 5.0.1's {@code lib/} (module stock-pulsar): it bundles the Iceberg materializer and what it needs that the
 * broker lacks (Iceberg, Parquet, Hadoop's minimal set, sqlite-jdbc, the AWS SDK's S3 client, unrelocated), no artifact
 * the broker's lib/ already has, and none of the storage's own classes (those come from lib/lakestream-pulsar-*.jar:
 * a second copy would be other classes to the JVM).
 */
class PluginNarContentsTest {

    private static final Pattern ARTIFACT = Pattern.compile("^\\s*([^:\\s]+):([^:\\s]+):([^:\\s]+):(?:[^:\\s]+:)?"
            + "([^:\\s]+):(compile|runtime|provided|system|test)(?::(\\S+\\.jar))?");

    record Artifact(String key, String version, String scope, Path jar) {}

    @Test
    void theNarBundlesWhatTheBrokersLibLacksAndNothingItHas() throws IOException {
        Path root = StockPulsarHome.projectDir();
        Map<String, Artifact> stock = artifacts(root.resolve("stock-pulsar/target/stock-lib-artifacts.txt"));
        Map<String, Artifact> listed = artifacts(root.resolve("pulsar-protocol-handler/target/bundled-artifacts.txt"));
        List<Artifact> bundled = listed.values().stream()
                .filter(a -> !a.scope().equals("provided"))
                .toList();
        assertThat(stock).containsKey("org.apache.pulsar:pulsar-broker");

        List<String> inStock =
                bundled.stream().map(Artifact::key).filter(stock::containsKey).toList();
        assertThat(inStock)
                .as("artifacts the NAR bundles although the broker's lib/ has them (declare them"
                        + " provided in pulsar-protocol-handler/pom.xml)")
                .isEmpty();
        assertThat(bundled)
                .extracting(Artifact::key)
                .as("what the materializer needs in the NAR")
                .contains(
                        "dev.lakestream:iceberg-sink",
                        "org.apache.iceberg:iceberg-core",
                        "org.apache.iceberg:iceberg-aws",
                        "org.apache.parquet:parquet-hadoop",
                        "org.apache.hadoop:hadoop-common",
                        "org.xerial:sqlite-jdbc",
                        "software.amazon.awssdk:s3",
                        "software.amazon.awssdk:url-connection-client");
        assertThat(bundled)
                .extracting(Artifact::key)
                .as("the storage's modules, which lib/ provides")
                .doesNotContain("dev.lakestream:lakestream-core", "dev.lakestream:pulsar-managedledger-lakestream");

        Path nar = root.resolve("pulsar-protocol-handler/target/lakestream-" + StockPulsarHome.VERSION + ".nar");
        List<String> jars = new ArrayList<>();
        List<String> storageClasses = new ArrayList<>();
        try (JarFile j = new JarFile(nar.toFile())) {
            for (Enumeration<JarEntry> en = j.entries(); en.hasMoreElements(); ) {
                JarEntry e = en.nextElement();
                String name = e.getName();
                if (name.startsWith("META-INF/bundled-dependencies/") && name.endsWith(".jar")) {
                    jars.add(name.substring(name.lastIndexOf('/') + 1));
                    try (ZipInputStream in = new ZipInputStream(j.getInputStream(e))) {
                        for (var inner = in.getNextEntry(); inner != null; inner = in.getNextEntry()) {
                            if (isStorageClass(inner.getName())) {
                                storageClasses.add(name + "!" + inner.getName());
                            }
                        }
                    }
                } else if (isStorageClass(name)) {
                    storageClasses.add(name);
                }
            }
        }
        assertThat(jars)
                .as("the NAR's bundled jars are exactly the listed artifacts")
                .containsExactlyInAnyOrderElementsOf(bundled.stream()
                        .map(a -> a.jar().getFileName().toString())
                        .toList());
        assertThat(storageClasses)
                .as("classes of the storage (lakestream-core, pulsar-managedledger-lakestream)" + " in the NAR")
                .isEmpty();
    }

    private static boolean isStorageClass(String entry) {
        return entry.endsWith(".class")
                && (entry.startsWith("dev/lakestream/core/")
                        || entry.startsWith("dev/lakestream/pulsar/")
                        || entry.startsWith("dev/lakestream/shaded/"));
    }

    private static Map<String, Artifact> artifacts(Path listFile) throws IOException {
        if (!Files.isRegularFile(listFile)) {
            throw new IllegalStateException(
                    "No " + listFile + ": package the modules stock-pulsar and" + " pulsar-protocol-handler first");
        }
        Map<String, Artifact> out = new TreeMap<>();
        for (String line : Files.readAllLines(listFile)) {
            Matcher m = ARTIFACT.matcher(line);
            if (m.find()) {
                String key = m.group(1) + ":" + m.group(2);
                out.put(
                        key,
                        new Artifact(key, m.group(4), m.group(5), m.group(6) == null ? null : Path.of(m.group(6))));
            }
        }
        return out;
    }
}
