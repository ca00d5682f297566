package dev.lakestream.tests.install;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.lakestream.testkit.RemoteStores;
import dev.lakestream.testkit.S3ProxyServer;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.apache.pulsar.broker.ServiceConfiguration;
import org.apache.pulsar.client.admin.PulsarAdmin;
import org.apache.pulsar.client.api.Consumer;
import org.apache.pulsar.client.api.Message;
import org.apache.pulsar.client.api.MessageId;
import org.apache.pulsar.client.api.Producer;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.Reader;
import org.apache.pulsar.client.api.Schema;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

/**
 * The docker-compose quickstart, as far as a machine without a container engine can take it: the compose file is
 * parsed, every file and key it names must exist (in the repository, the release bundle, Pulsar's configuration or
 * docs/configuration.md), and two brokers are started from the very lines the compose file installs, on stock Pulsar
 * homes, with the addresses pointed at this test's Oxia and S3Proxy servers. The compose file itself is not run.
 */
@Timeout(value = 8, unit = TimeUnit.MINUTES)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ComposeQuickstartTest {

    private static final Pattern INSTALL =
            Pattern.compile("(\\S*/bin/lakestream-install)\\s+(\\S+)(.*?)(?:&&|$)", Pattern.DOTALL);

    private static JsonNode compose;
    private static Path root;
    private static Path workDir;
    private static RemoteStores remote;
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
        if (remote != null) {
            remote.close();
        }
    }

    /** One broker service of the compose file: what it mounts and how it installs the bundle. */
    record BrokerService(String name, Map<String, Path> mounts, Path installer, List<String> installArgs) {

        Path confFile() {
            int i = installArgs.indexOf("--conf");
            assertThat(i).as("%s installs with --conf FILE", name).isNotNegative();
            return hostPath(name, mounts, installArgs.get(i + 1));
        }

        List<String> settings() {
            return installArgs.stream()
                    .filter(a -> a.contains("=") && !a.startsWith("--"))
                    .toList();
        }
    }

    /** The host path of a container path, through a service's bind mounts. */
    static Path hostPath(String service, Map<String, Path> mounts, String containerPath) {
        for (Map.Entry<String, Path> m : mounts.entrySet()) {
            if (containerPath.equals(m.getKey()) || containerPath.startsWith(m.getKey() + "/")) {
                return m.getValue()
                        .resolve(containerPath.substring(m.getKey().length()).replaceFirst("^/", ""));
            }
        }
        throw new AssertionError("service " + service + " uses " + containerPath + ", which no volume mounts");
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
            out.add(new BrokerService(e.getKey(), mounts, hostPath(e.getKey(), mounts, m.group(1)), args));
        });
        return out;
    }

    @Test
    @Order(1)
    void everyFileAndKeyTheComposeFileNamesExists() throws Exception {
        List<BrokerService> services = brokerServices();
        assertThat(services).extracting(BrokerService::name).containsExactlyInAnyOrder("broker-1", "broker-2");
        Set<String> documented = documentedKeys();
        Set<String> pulsarKeys = pulsarKeys();
        for (BrokerService b : services) {
            assertThat(b.installer())
                    .as("the installer %s mounts", b.name())
                    .isExecutable()
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
            assertThat(unknown)
                    .as("keys %s sets that neither Pulsar nor docs/configuration.md knows", b.name())
                    .isEmpty();
        }
        // The cluster the init service writes is the one the brokers join.
        String init = String.join(
                " ", texts(compose.get("services").get("pulsar-init").get("command")));
        Properties conf = properties(services.get(0).confFile());
        assertThat(init)
                .contains("--cluster=" + conf.getProperty("clusterName"))
                .contains("--metadata-store=" + conf.getProperty("metadataStoreUrl"));
        assertThat(texts(compose.get("services").get("minio-init").get("command"))
                        .get(0))
                .contains("local/" + conf.getProperty("lakestream.s3.bucket"));
    }

    @Test
    @Order(2)
    void twoBrokersStartFromTheComposeLinesAndServeOneTopic() throws Exception {
        remote = RemoteStores.start("compose");
        S3ProxyServer s3 = remote.s3();
        List<BrokerService> services = brokerServices();
        Properties lines = properties(services.get(0).confFile());
        // The brokers use the bucket the compose file names (RemoteStores' own bucket stays empty).
        s3.createBucket(lines.getProperty("lakestream.s3.bucket"));
        String oxiaUrl = remote.oxiaMetadataStoreUrl();
        Map<String, String> pointed = Map.of(
                "metadataStoreUrl", oxiaUrl,
                "configurationMetadataStoreUrl", oxiaUrl,
                "lakestream.s3.endpoint", s3.endpoint().toString(),
                "lakestream.s3.accessKeyId", s3.accessKey(),
                "lakestream.s3.secretAccessKey", s3.secretKey(),
                "lakestream.oxia.serviceAddress", remote.oxia().serviceAddress());
        Path testConf = workDir.resolve("lakestream-broker.conf");
        List<String> out = new ArrayList<>();
        for (String line : Files.readAllLines(services.get(0).confFile())) {
            int eq = line.indexOf('=');
            String key = eq > 0 && !line.startsWith("#") ? line.substring(0, eq) : null;
            out.add(key != null && pointed.containsKey(key) ? key + "=" + pointed.get(key) : line);
        }
        Files.write(testConf, out);

        for (BrokerService b : services) {
            int brokerPort = StockBrokerExtension.freePort();
            int webPort = StockBrokerExtension.freePort();
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
            args.addAll(List.of(
                    "bindAddress=127.0.0.1",
                    "brokerServicePort=" + brokerPort,
                    "webServicePort=" + webPort,
                    "narExtractionDirectory=" + workDir.resolve(b.name() + "-nar"),
                    "numIOThreads=2",
                    "numHttpServerThreads=8",
                    "managedLedgerCacheSizeMB=32",
                    "metadataStoreSessionTimeoutMillis=5000"));
            // For the garbage-collection test below: small ledgers trimmed by retention every second, and a collector
            // that runs every second and deletes what no index references after a few seconds, not an hour.
            args.addAll(List.of(
                    "managedLedgerMaxEntriesPerLedger=5",
                    "managedLedgerMinLedgerRolloverTimeMinutes=0",
                    "retentionCheckIntervalInSeconds=1",
                    "lakestream.gc.interval=1s",
                    "lakestream.gc.safetyMargin=1s",
                    "lakestream.gc.commitWindow=2s",
                    "lakestream.gc.orphanDelay=5s"));
            StockPulsarHome.CommandResult install = home.install(args.toArray(String[]::new));
            assertThat(install.exitCode()).as("%s", install).isZero();
            if (brokers.isEmpty()) {
                StockPulsarHome.CommandResult setup = home.bin(
                        "pulsar",
                        Map.of("PULSAR_LOG_DIR", workDir.toString()),
                        180,
                        "initialize-cluster-metadata",
                        "--cluster=" + lines.getProperty("clusterName"),
                        "--metadata-store=" + oxiaUrl,
                        "--configuration-metadata-store=" + oxiaUrl,
                        "--web-service-url=http://127.0.0.1:" + webPort,
                        "--broker-service-url=pulsar://127.0.0.1:" + brokerPort);
                assertThat(setup.exitCode()).as("%s", setup).isZero();
            }
            brokers.add(new StockBroker(home, webPort, workDir.resolve(b.name() + ".log")).start());
            brokerPorts.add(brokerPort);
        }
        for (StockBroker b : brokers) {
            b.awaitServing(Duration.ofMinutes(3));
        }

        String topic = "persistent://public/default/quickstart";
        List<String> sent = new ArrayList<>();
        try (PulsarClient viaFirst = client(0);
                PulsarClient viaSecond = client(1);
                Consumer<String> consumer = viaSecond
                        .newConsumer(Schema.STRING)
                        .topic(topic)
                        .subscriptionName("s")
                        .subscribe();
                Producer<String> producer =
                        viaFirst.newProducer(Schema.STRING).topic(topic).create()) {
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
            assertThat(files.filter(Files::isRegularFile).count())
                    .as("objects in the quickstart's bucket")
                    .isPositive();
        }
    }

    /**
     * Topics A and B written together (so they share WAL objects); A deleted, B consumed and trimmed by retention: the
     * bucket shrinks to what B still holds, with one collector among the two brokers, and B's rest still reads.
     */
    @Test
    @Order(3)
    void deletingOneTopicAndTrimmingAnotherShrinksTheBucketWithOneCollector() throws Exception {
        assertThat(brokers).as("brokers of the previous test").hasSize(2);
        String bucketName = properties(brokerServices().get(0).confFile()).getProperty("lakestream.s3.bucket");
        Path bucketDir = remote.s3().dataDir().resolve(bucketName);
        String a = "persistent://public/default/gc-a";
        String b = "persistent://public/default/gc-b";
        byte[] payload = new byte[1024];
        Random random = new Random(7);
        int perTopic = 60;
        String lastOfB = null;
        try (PulsarClient client = client(0);
                Consumer<byte[]> consumerOfB =
                        client.newConsumer().topic(b).subscriptionName("s").subscribe();
                Consumer<byte[]> consumerOfA =
                        client.newConsumer().topic(a).subscriptionName("s").subscribe();
                Producer<byte[]> pa =
                        client.newProducer().topic(a).enableBatching(false).create();
                Producer<byte[]> pb =
                        client.newProducer().topic(b).enableBatching(false).create()) {
            List<CompletableFuture<?>> sends = new ArrayList<>();
            for (int i = 0; i < perTopic; i++) {
                random.nextBytes(payload);
                sends.add(pa.sendAsync(payload.clone()));
                random.nextBytes(payload);
                sends.add(pb.newMessage()
                        .value(payload.clone())
                        .property("i", Integer.toString(i))
                        .sendAsync());
            }
            CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
            lastOfB = Integer.toString(perTopic - 1);
            long[] before = bucketUsage(bucketDir);
            LOG_LINES.add("bucket before: " + before[0] + " objects, " + before[1] + " bytes");

            // B's subscription acknowledges all but the last 10: retention trims what is acknowledged, keeps the rest.
            for (int i = 0; i < perTopic - 10; i++) {
                Message<byte[]> m = consumerOfB.receive(30, TimeUnit.SECONDS);
                assertThat(m).as("message %d of B", i).isNotNull();
                consumerOfB.acknowledge(m);
            }
            consumerOfA.close();
            pa.close();
            try (PulsarAdmin admin = PulsarAdmin.builder()
                    .serviceHttpUrl(brokers.get(0).webServiceUrl())
                    .build()) {
                admin.topics().delete(a, true);
            }
            long written = 2L * perTopic * payload.length;
            try {
                await("the bucket shrinks by half of what A and B wrote")
                        .atMost(Duration.ofMinutes(2))
                        .ignoreExceptionsInstanceOf(Exception.class)
                        .until(() -> bucketUsage(bucketDir)[1] <= before[1] - written / 2);
            } catch (ConditionTimeoutException e) {
                // The assertions below say by how much it missed.
            }
            long[] after = bucketUsage(bucketDir);
            LOG_LINES.add("bucket after: " + after[0] + " objects, " + after[1] + " bytes");
            Files.write(workDir.resolve("gc-counts.txt"), LOG_LINES);
            assertThat(after[1])
                    .as(
                            "bucket bytes after deleting A and trimming B (before %s, %s written to A and B)",
                            before[1], written)
                    .isLessThanOrEqualTo(before[1] - written / 2);
            assertThat(after[0]).as("bucket objects").isLessThan(before[0]);
        }

        double leases = 0;
        double deletedBytes = 0;
        for (StockBroker broker : brokers) {
            String metrics = scrape(broker);
            leases += sum(metrics, "lakestream_gc_lease_held");
            deletedBytes += sum(metrics, "lakestream_gc_deleted_bytes_total");
        }
        assertThat(leases).as("brokers holding the GC lease").isEqualTo(1.0);
        assertThat(deletedBytes).as("bytes the collector reports deleted").isPositive();

        // What B still holds reads back: no reader meets a deleted object for data it may read.
        try (PulsarClient client = client(1);
                Reader<byte[]> reader = client.newReader()
                        .topic(b)
                        .startMessageId(MessageId.earliest)
                        .create()) {
            List<Integer> kept = new ArrayList<>();
            while (reader.hasMessageAvailable()) {
                Message<byte[]> m = reader.readNext(30, TimeUnit.SECONDS);
                assertThat(m).isNotNull();
                kept.add(Integer.parseInt(m.getProperty("i")));
            }
            LOG_LINES.add("B still reads messages " + kept);
            Files.write(workDir.resolve("gc-counts.txt"), LOG_LINES);
            assertThat(kept)
                    .as("B's messages from what retention kept")
                    .isNotEmpty()
                    .isSorted()
                    .endsWith(Integer.parseInt(lastOfB));
            assertThat(kept)
                    .as("the 10 unacknowledged ones among them")
                    .containsAll(
                            IntStream.range(perTopic - 10, perTopic).boxed().toList());
        }
    }

    private static final List<String> LOG_LINES = new ArrayList<>();

    private static long[] bucketUsage(Path bucketDir) throws IOException {
        long[] out = new long[2];
        try (var files = Files.walk(bucketDir)) {
            for (Path p : files.filter(Files::isRegularFile).toList()) {
                out[0]++;
                out[1] += Files.size(p);
            }
        }
        return out;
    }

    private static String scrape(StockBroker broker) throws IOException, InterruptedException {
        HttpResponse<String> r = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(broker.webServiceUrl() + "/metrics/"))
                                .timeout(Duration.ofSeconds(30))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        return r.body();
    }

    /** The sum of a series' samples in Prometheus text. */
    private static double sum(String text, String name) {
        double total = 0;
        for (String line : text.split("\n", -1)) {
            if (line.startsWith(name + "{") || line.startsWith(name + " ")) {
                String rest = line.startsWith(name + "{")
                        ? line.substring(line.indexOf('}') + 1)
                        : line.substring(name.length());
                total += Double.parseDouble(rest.trim().split("\\s+", -1)[0]);
            }
        }
        return total;
    }

    private static PulsarClient client(int broker) throws IOException {
        return PulsarClient.builder()
                .serviceUrl("pulsar://127.0.0.1:" + brokerPorts.get(broker))
                .build();
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
        Matcher m = Pattern.compile("`(lakestream\\.[A-Za-z0-9.]+)`")
                .matcher(Files.readString(root.resolve("docs/configuration.md")));
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
