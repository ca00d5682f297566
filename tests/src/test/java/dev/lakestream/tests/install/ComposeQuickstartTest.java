package dev.lakestream.tests.install;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.lakestream.testkit.OxiaServer;
import dev.lakestream.testkit.S3ProxyServer;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.pulsar.broker.ServiceConfiguration;
import org.apache.pulsar.client.api.Consumer;
import org.apache.pulsar.client.api.Message;
import org.apache.pulsar.client.api.Producer;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.Schema;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The docker-compose quickstart, as far as a machine without a container engine can take it: the compose file is
 * parsed, every file and key it names must exist (in the repository, the release bundle, Pulsar's configuration or
 * docs/configuration.md), and two brokers are started from the very lines the compose file installs, on stock Pulsar
 * homes, with the addresses pointed at this test's Oxia and S3Proxy servers. The compose file itself is not run.
 */
@Timeout(value = 8, unit = TimeUnit.MINUTES)
class ComposeQuickstartTest {

    private static final Pattern INSTALL = Pattern.compile("(\\S*/bin/lakestream-install)\\s+(\\S+)(.*?)(?:&&|$)",
            Pattern.DOTALL);

    private static JsonNode compose;
    private static Path root;
    private static Path workDir;
    private static S3ProxyServer s3;
    private static OxiaServer oxia;
    private static final List<StockBroker> brokers = new ArrayList<>();
    private static final List<Integer> brokerPorts = new ArrayList<>();

    @BeforeAll
    static void parse() throws Exception {
        root = StockPulsarHome.projectDir();
        compose = new YAMLMapper().readTree(root.resolve("docker-compose.yml").toFile());
        workDir = Files.createDirectories(root.resolve("tests/target/compose-quickstart"));
        TestDirs.clean(workDir);
    }

    @AfterAll
    static void stop() throws Exception {
        for (StockBroker b : brokers) {
            b.close();
        }
        if (oxia != null) {
            oxia.close();
        }
        if (s3 != null) {
            s3.close();
        }
    }

    /** One broker service of the compose file: what it mounts and how it installs the bundle. */
    record BrokerService(String name, Map<String, Path> mounts, Path installer, List<String> installArgs) {

        /** The host path of a container path, through the service's bind mounts. */
        Path hostPath(String containerPath) {
            for (Map.Entry<String, Path> m : mounts.entrySet()) {
                if (containerPath.equals(m.getKey()) || containerPath.startsWith(m.getKey() + "/")) {
                    return m.getValue().resolve(containerPath.substring(m.getKey().length()).replaceFirst("^/", ""));
                }
            }
            throw new AssertionError("service " + name + " uses " + containerPath + ", which no volume mounts");
        }

        Path confFile() {
            int i = installArgs.indexOf("--conf");
            assertThat(i).as("%s installs with --conf FILE", name).isNotNegative();
            return hostPath(installArgs.get(i + 1));
        }

        List<String> settings() {
            return installArgs.stream().filter(a -> a.contains("=") && !a.startsWith("--")).toList();
        }
    }

    static List<BrokerService> brokerServices() {
        List<BrokerService> out = new ArrayList<>();
        compose.get("services").fields().forEachRemaining(e -> {
            JsonNode svc = e.getValue();
            String command = String.join(" ", texts(svc.get("command")));
            Matcher m = INSTALL.matcher(command);
            if (!m.find()) {
                return;
            }
            assertThat(svc.get("image").asText()).as("image of %s", e.getKey()).isEqualTo("apachepulsar/pulsar:5.0.1");
            Map<String, Path> mounts = new LinkedHashMap<>();
            for (JsonNode v : svc.get("volumes")) {
                String source;
                String target;
                if (v.isTextual()) {
                    String[] parts = v.asText().split(":");
                    source = parts[0];
                    target = parts[1];
                } else {
                    source = v.get("source").asText();
                    target = v.get("target").asText();
                }
                mounts.put(target, root.resolve(interpolate(source)).normalize());
            }
            List<String> args = new ArrayList<>(List.of(m.group(3).trim().split("\\s+")));
            assertThat(m.group(2)).as("PULSAR_HOME of the official image").isEqualTo("/pulsar");
            BrokerService b = new BrokerService(e.getKey(), mounts, null, args);
            out.add(new BrokerService(e.getKey(), mounts, b.hostPath(m.group(1)), args));
        });
        return out;
    }

    @Test
    void everyFileAndKeyTheComposeFileNamesExists() throws Exception {
        List<BrokerService> services = brokerServices();
        assertThat(services).extracting(BrokerService::name).containsExactlyInAnyOrder("broker-1", "broker-2");
        Set<String> documented = documentedKeys();
        Set<String> pulsarKeys = pulsarKeys();
        for (BrokerService b : services) {
            assertThat(b.installer()).as("the installer %s mounts", b.name()).isExecutable()
                    .isEqualTo(StockPulsarHome.bundle().resolve("bin/lakestream-install"));
            assertThat(b.installArgs()).contains("--diskless");
            assertThat(b.confFile()).isRegularFile();
            Set<String> unknown = new TreeSet<>();
            List<String> keys = new ArrayList<>(properties(b.confFile()).stringPropertyNames());
            b.settings().forEach(s -> keys.add(s.substring(0, s.indexOf('='))));
            for (String key : keys) {
                boolean known = key.startsWith("lakestream.") ? documented.contains(key) : pulsarKeys.contains(key);
                if (!known) {
                    unknown.add(key);
                }
            }
            assertThat(unknown).as("keys %s sets that neither Pulsar nor docs/configuration.md knows", b.name())
                    .isEmpty();
        }
        // The cluster the init service writes is the one the brokers join.
        String init = String.join(" ", texts(compose.get("services").get("pulsar-init").get("command")));
        Properties conf = properties(services.get(0).confFile());
        assertThat(init).contains("--cluster=" + conf.getProperty("clusterName"))
                .contains("--metadata-store=" + conf.getProperty("metadataStoreUrl"));
        assertThat(texts(compose.get("services").get("minio-init").get("command")).get(0))
                .contains("local/" + conf.getProperty("lakestream.s3.bucket"));
    }

    @Test
    void twoBrokersStartFromTheComposeLinesAndServeOneTopic() throws Exception {
        s3 = S3ProxyServer.start();
        oxia = OxiaServer.create("compose").start();
        List<BrokerService> services = brokerServices();
        Properties lines = properties(services.get(0).confFile());
        s3.createBucket(lines.getProperty("lakestream.s3.bucket"));
        String oxiaUrl = "oxia://" + oxia.serviceAddress() + "/default";
        Map<String, String> pointed = Map.of(
                "metadataStoreUrl", oxiaUrl,
                "configurationMetadataStoreUrl", oxiaUrl,
                "lakestream.s3.endpoint", s3.endpoint().toString(),
                "lakestream.s3.accessKeyId", s3.accessKey(),
                "lakestream.s3.secretAccessKey", s3.secretKey(),
                "lakestream.oxia.serviceAddress", oxia.serviceAddress());
        Path testConf = workDir.resolve("lakestream-broker.conf");
        List<String> out = new ArrayList<>();
        for (String line : Files.readAllLines(services.get(0).confFile())) {
            int eq = line.indexOf('=');
            String key = eq > 0 && !line.startsWith("#") ? line.substring(0, eq) : null;
            out.add(key != null && pointed.containsKey(key) ? key + "=" + pointed.get(key) : line);
        }
        Files.write(testConf, out);

        for (BrokerService b : services) {
            int brokerPort = StockPulsarInstallTest.freePort();
            int webPort = StockPulsarInstallTest.freePort();
            StockPulsarHome home = StockPulsarHome.copyTo(workDir.resolve(b.name()));
            List<String> args = new ArrayList<>();
            for (int i = 0; i < b.installArgs().size(); i++) {
                String a = b.installArgs().get(i);
                if (a.equals("--conf")) {
                    args.add(a);
                    args.add(testConf.toString());
                    i++;
                } else if (a.startsWith("advertisedAddress=")) {
                    args.add("advertisedAddress=127.0.0.1");
                } else {
                    args.add(a);
                }
            }
            args.addAll(List.of("bindAddress=127.0.0.1", "brokerServicePort=" + brokerPort,
                    "webServicePort=" + webPort, "narExtractionDirectory=" + workDir.resolve(b.name() + "-nar"),
                    "numIOThreads=2", "numHttpServerThreads=8", "managedLedgerCacheSizeMB=32",
                    "metadataStoreSessionTimeoutMillis=5000"));
            StockPulsarHome.CommandResult install = home.install(args.toArray(String[]::new));
            assertThat(install.exitCode()).as("%s", install).isZero();
            if (brokers.isEmpty()) {
                StockPulsarHome.CommandResult setup = home.bin("pulsar", Map.of("PULSAR_LOG_DIR", workDir.toString()),
                        180, "initialize-cluster-metadata", "--cluster=" + lines.getProperty("clusterName"),
                        "--metadata-store=" + oxiaUrl, "--configuration-metadata-store=" + oxiaUrl,
                        "--web-service-url=http://127.0.0.1:" + webPort,
                        "--broker-service-url=pulsar://127.0.0.1:" + brokerPort);
                assertThat(setup.exitCode()).as("%s", setup).isZero();
            }
            brokers.add(new StockBroker(home, webPort, workDir.resolve(b.name() + ".log")).start());
            brokerPorts.add(brokerPort);
        }
        for (StockBroker b : brokers) {
            b.awaitServing(Duration.ofSeconds(180));
        }

        String topic = "persistent://public/default/quickstart";
        List<String> sent = new ArrayList<>();
        try (PulsarClient viaFirst = client(0); PulsarClient viaSecond = client(1);
             Consumer<String> consumer = viaSecond.newConsumer(Schema.STRING).topic(topic).subscriptionName("s")
                     .subscribe();
             Producer<String> producer = viaFirst.newProducer(Schema.STRING).topic(topic).create()) {
            for (int i = 0; i < 20; i++) {
                producer.send("q-" + i);
                sent.add("q-" + i);
            }
            List<String> received = new ArrayList<>();
            for (int i = 0; i < sent.size(); i++) {
                Message<String> m = consumer.receive(30, TimeUnit.SECONDS);
                assertThat(m).as("message %d", i).isNotNull();
                received.add(m.getValue());
                consumer.acknowledge(m);
            }
            assertThat(received).isEqualTo(sent);
        }
        try (var files = Files.walk(s3.dataDir().resolve(lines.getProperty("lakestream.s3.bucket")))) {
            assertThat(files.filter(Files::isRegularFile).count()).as("objects in the quickstart's bucket")
                    .isPositive();
        }
    }

    private static PulsarClient client(int broker) throws IOException {
        return PulsarClient.builder().serviceUrl("pulsar://127.0.0.1:" + brokerPorts.get(broker)).build();
    }

    private static List<String> texts(JsonNode node) {
        List<String> out = new ArrayList<>();
        if (node == null) {
            return out;
        }
        if (node.isArray()) {
            node.forEach(n -> out.add(n.asText()));
        } else {
            out.add(node.asText());
        }
        return out;
    }

    /** Compose's ${VAR:-default} with the defaults (this test sets no variable). */
    private static String interpolate(String s) {
        return s.replaceAll("\\$\\{[A-Z_]+:-([^}]*)}", "$1");
    }

    private static Properties properties(Path file) throws IOException {
        Properties p = new Properties();
        try (var r = Files.newBufferedReader(file)) {
            p.load(r);
        }
        return p;
    }

    /** Every {@code lakestream.*} key docs/configuration.md names in backticks. */
    private static Set<String> documentedKeys() throws IOException {
        Set<String> out = new TreeSet<>();
        Matcher m = Pattern.compile("`(lakestream\\.[A-Za-z0-9.]+)`").matcher(
                Files.readString(root.resolve("docs/configuration.md")));
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }

    /** The keys Pulsar's broker configuration has (its fields), plus the storage's own lakestreamStorageMode. */
    private static Set<String> pulsarKeys() {
        Set<String> out = new TreeSet<>();
        for (Class<?> c = ServiceConfiguration.class; c != Object.class; c = c.getSuperclass()) {
            for (Field f : c.getDeclaredFields()) {
                if (!Modifier.isStatic(f.getModifiers())) {
                    out.add(f.getName());
                }
            }
        }
        out.add("lakestreamStorageMode");
        return out;
    }
}
