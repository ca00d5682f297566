package dev.lakestream.tests.install;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The storage jar ({@code lib/lakestream-pulsar-*.jar}, module lakestream-pulsar) against a stock Pulsar 5.0.1's
 * {@code lib/} (module stock-pulsar), class by class: it must hold every class of every artifact the storage needs
 * at run time that the broker lacks (relocated as the shade plugin says), none of an artifact the broker has, and
 * no third-party class outside {@code dev/lakestream/}; and what the storage's own code calls must be at the
 * broker's versions. A new dependency therefore cannot silently duplicate one of Pulsar's jars, nor be missing.
 */
class StockLibContentsTest {

    private static final Pattern ARTIFACT = Pattern.compile("^\\s*([^:\\s]+):([^:\\s]+):([^:\\s]+):(?:[^:\\s]+:)?"
            + "([^:\\s]+):(?:compile|runtime|provided|system|test)(?::(\\S+\\.jar))?");

    /**
     * What the storage's own code calls: these must be the very versions Pulsar's lib/ has (the root pom pins them).
     * Artifacts they bring in turn (gRPC's, the Oxia client's) may resolve to other versions in this build's tree; in
     * the broker Pulsar's copies serve, as they serve Pulsar's own Oxia client, and the stock-install tests run them.
     */
    private static final List<String> COMPILED_AGAINST = List.of(
            "io.netty:",
            "com.fasterxml.jackson.core:",
            "io.github.oxia-db:",
            "org.rocksdb:",
            "org.slf4j:",
            "com.google.guava:guava",
            "org.apache.pulsar:");

    record Artifact(String key, String version, Path jar) {}

    @Test
    void theStorageJarHoldsExactlyWhatPulsarsLibLacks() throws IOException {
        Path root = StockPulsarHome.projectDir();
        Map<String, Artifact> stock = artifacts(root.resolve("stock-pulsar/target/stock-lib-artifacts.txt"));
        Map<String, Artifact> needed = artifacts(root.resolve("lakestream-pulsar/target/runtime-artifacts.txt"));
        assertThat(stock).as("the stock lib's artifact list").containsKey("org.apache.pulsar:pulsar-broker");
        assertThat(needed).as("the storage's run-time artifact list").containsKey("dev.lakestream:lakestream-core");
        Map<String, String> relocations = relocations(root.resolve("lakestream-pulsar/pom.xml"));

        Path jar = root.resolve("lakestream-pulsar/target/lakestream-pulsar-" + StockPulsarHome.VERSION + ".jar");
        Set<String> shaded = new HashSet<>();
        List<String> unrelocated = new ArrayList<>();
        try (JarFile j = new JarFile(jar.toFile())) {
            for (Enumeration<JarEntry> en = j.entries(); en.hasMoreElements(); ) {
                String name = en.nextElement().getName();
                String path = name.replaceFirst("^META-INF/versions/\\d+/", "");
                if (path.endsWith(".class")) {
                    shaded.add(path);
                    if (!path.startsWith("dev/lakestream/")) {
                        unrelocated.add(name);
                    }
                }
            }
        }

        List<String> versionMismatches = new ArrayList<>();
        Map<String, Integer> missingClasses = new TreeMap<>();
        Map<String, Integer> duplicatedClasses = new TreeMap<>();
        for (Artifact a : needed.values()) {
            if (a.jar() == null || a.key().startsWith("dev.lakestream:")) {
                continue;
            }
            Artifact inStock = stock.get(a.key());
            List<String> classes = classesOf(a.jar());
            int missing = 0;
            int present = 0;
            for (String c : classes) {
                boolean there = shaded.contains(relocate(c, relocations)) || shaded.contains(c);
                if (there) {
                    present++;
                } else {
                    missing++;
                }
            }
            if (inStock == null && missing > 0) {
                missingClasses.put(a.key(), missing);
            } else if (inStock != null && present > 0) {
                duplicatedClasses.put(a.key(), present);
            }
            if (inStock != null
                    && !inStock.version().equals(a.version())
                    && COMPILED_AGAINST.stream().anyMatch(a.key()::startsWith)) {
                versionMismatches.add(a.key() + " needs " + a.version() + ", Pulsar's lib has " + inStock.version());
            }
        }
        assertThat(versionMismatches)
                .as("artifacts the storage calls at another version than Pulsar's lib has")
                .isEmpty();
        assertThat(missingClasses)
                .as(
                        "artifacts needed at run time that Pulsar's lib lacks, with classes missing from"
                                + " %s (add them to the shade plugin's includes in lakestream-pulsar/pom.xml)",
                        jar.getFileName())
                .isEmpty();
        assertThat(duplicatedClasses)
                .as(
                        "artifacts Pulsar's lib already has, with classes copied into %s (remove"
                                + " them from the shade plugin's includes)",
                        jar.getFileName())
                .isEmpty();
        assertThat(unrelocated)
                .as("third-party classes not relocated under dev/lakestream/shaded")
                .isEmpty();
        assertThat(shaded)
                .as("the storage's own classes")
                .contains(
                        "dev/lakestream/core/Lakestream.class",
                        "dev/lakestream/pulsar/LakestreamManagedLedgerStorage.class");
    }

    /**
     * The storage's own classes in the jar are this build's: each class of lakestream-core and
     * pulsar-managedledger-lakestream that names no relocated package is byte for byte the module's (a stale jar
     * once shipped an old Lakestream.class beside a new GcService).
     */
    @Test
    void theStorageJarHasThisBuildsClasses() throws IOException {
        Path root = StockPulsarHome.projectDir();
        Map<String, String> relocations = relocations(root.resolve("lakestream-pulsar/pom.xml"));
        Path shadedJar = root.resolve("lakestream-pulsar/target/lakestream-pulsar-" + StockPulsarHome.VERSION + ".jar");
        int compared = 0;
        List<String> differing = new ArrayList<>();
        try (JarFile shaded = new JarFile(shadedJar.toFile())) {
            for (String module : List.of("lakestream-core", "pulsar-managedledger-lakestream")) {
                Path jar = root.resolve(module + "/target/" + module + "-" + StockPulsarHome.VERSION + ".jar");
                try (JarFile j = new JarFile(jar.toFile())) {
                    for (Enumeration<JarEntry> en = j.entries(); en.hasMoreElements(); ) {
                        JarEntry e = en.nextElement();
                        if (!e.getName().endsWith(".class")) {
                            continue;
                        }
                        byte[] mine = j.getInputStream(e).readAllBytes();
                        String text = new String(mine, java.nio.charset.StandardCharsets.ISO_8859_1);
                        if (relocations.keySet().stream().anyMatch(text::contains)) {
                            continue; // rewritten by the relocation
                        }
                        JarEntry there = shaded.getJarEntry(e.getName());
                        if (there == null
                                || !java.util.Arrays.equals(
                                        mine, shaded.getInputStream(there).readAllBytes())) {
                            differing.add(module + ": " + e.getName());
                        }
                        compared++;
                    }
                }
            }
        }
        assertThat(compared).as("classes compared").isGreaterThan(50);
        assertThat(differing)
                .as("classes of %s that are not this build's", shadedJar.getFileName())
                .isEmpty();
    }

    private static String relocate(String classFile, Map<String, String> relocations) {
        for (Map.Entry<String, String> r : relocations.entrySet()) {
            if (classFile.startsWith(r.getKey())) {
                return r.getValue() + classFile.substring(r.getKey().length());
            }
        }
        return classFile;
    }

    /** The shade plugin's relocations, as path prefixes: pattern to shaded pattern. */
    private static Map<String, String> relocations(Path pom) throws IOException {
        Map<String, String> out = new LinkedHashMap<>();
        Matcher m = Pattern.compile("<pattern>([^<]+)</pattern>\\s*<shadedPattern>([^<]+)</shadedPattern>")
                .matcher(Files.readString(pom));
        while (m.find()) {
            out.put(m.group(1).replace('.', '/') + "/", m.group(2).replace('.', '/') + "/");
        }
        assertThat(out).as("relocations in %s", pom).isNotEmpty();
        return out;
    }

    private static List<String> classesOf(Path jar) throws IOException {
        List<String> out = new ArrayList<>();
        try (JarFile j = new JarFile(jar.toFile())) {
            for (Enumeration<JarEntry> en = j.entries(); en.hasMoreElements(); ) {
                String name = en.nextElement().getName().replaceFirst("^META-INF/versions/\\d+/", "");
                if (name.endsWith(".class") && !name.endsWith("module-info.class")) {
                    out.add(name);
                }
            }
        }
        return out;
    }

    /** groupId:artifactId to the artifact, from a {@code dependency:list} file. */
    static Map<String, Artifact> artifacts(Path listFile) throws IOException {
        if (!Files.isRegularFile(listFile)) {
            throw new IllegalStateException("No " + listFile + ": package the modules stock-pulsar and"
                    + " lakestream-pulsar first (bin/test does)");
        }
        Map<String, Artifact> out = new TreeMap<>();
        for (String line : Files.readAllLines(listFile)) {
            Matcher m = ARTIFACT.matcher(line);
            if (m.find()) {
                String key = m.group(1) + ":" + m.group(2);
                out.put(key, new Artifact(key, m.group(4), m.group(5) == null ? null : Path.of(m.group(5))));
            }
        }
        return out;
    }
}
