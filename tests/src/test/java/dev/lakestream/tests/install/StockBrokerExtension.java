package dev.lakestream.tests.install;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lakestream.testkit.OxiaServer;
import dev.lakestream.testkit.RemoteStores;
import dev.lakestream.testkit.S3ProxyServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;

/**
 * A stock Pulsar 5.0.1 broker with this project's plugin, as a user gets one, shared by a test class (a static
 * {@code @RegisterExtension} field). Before the class: a real S3Proxy bucket and Oxia server, a copy of the stock home
 * in {@code tests/target/<name>}, the user's settings in its {@code conf/broker.conf}, Pulsar's own
 * {@code initialize-cluster-metadata}, the release bundle installed by {@code bin/lakestream-install --diskless} and
 * the broker started by {@code bin/pulsar broker}. After the class: the broker, Oxia and S3Proxy stopped.
 */
public final class StockBrokerExtension implements BeforeAllCallback, AfterAllCallback, TestExecutionExceptionHandler {

    private static final Duration START = Duration.ofMinutes(3);

    private final String name;
    private final String clusterName;
    private final Map<String, String> brokerConf = new LinkedHashMap<>();
    private Function<StockBrokerExtension, Map<String, String>> installSettings = x -> Map.of();

    private Path workDir;
    private RemoteStores remote;
    private StockPulsarHome home;
    private StockBroker broker;
    private int brokerPort;
    private int webPort;
    private String installTranscript;

    /** {@code name} names the work directory and the Oxia server; {@code clusterName} the Pulsar cluster. */
    public StockBrokerExtension(String name, String clusterName) {
        this.name = name;
        this.clusterName = clusterName;
    }

    /** A {@code conf/broker.conf} setting over the user's basics, written before the install. */
    public StockBrokerExtension brokerConf(String key, String value) {
        brokerConf.put(key, value);
        return this;
    }

    /** More {@code key=value} arguments of the install, computed once the servers and the home exist. */
    public StockBrokerExtension installSettings(Function<StockBrokerExtension, Map<String, String>> settings) {
        this.installSettings = settings;
        return this;
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        workDir = Files.createDirectories(StockPulsarHome.projectDir().resolve("tests/target/" + name));
        TestDirs.clean(workDir);
        remote = RemoteStores.start(name);
        brokerPort = freePort();
        webPort = freePort();
        home = StockPulsarHome.copyTo(workDir.resolve("apache-pulsar-5.0.1"));

        // The user's Pulsar, before Lakestream: its own metadata in Oxia, its addresses, its cluster.
        String oxiaUrl = remote.oxiaMetadataStoreUrl();
        Map<String, String> users = new LinkedHashMap<>();
        users.put("clusterName", clusterName);
        users.put("metadataStoreUrl", oxiaUrl);
        users.put("configurationMetadataStoreUrl", oxiaUrl);
        users.put("bindAddress", "127.0.0.1");
        users.put("advertisedAddress", "127.0.0.1");
        users.put("brokerServicePort", Integer.toString(brokerPort));
        users.put("webServicePort", Integer.toString(webPort));
        users.put("narExtractionDirectory", workDir.resolve("nar").toString());
        users.put("numIOThreads", "2");
        users.put("numHttpServerThreads", "8");
        users.put("managedLedgerCacheSizeMB", "32");
        users.put("loadBalancerEnabled", "false");
        users.putAll(brokerConf);
        home.editBrokerConf(users);
        StockPulsarHome.CommandResult setup = home.bin(
                "pulsar",
                Map.of("PULSAR_LOG_DIR", workDir.toString()),
                180,
                "initialize-cluster-metadata",
                "--cluster",
                clusterName,
                "--metadata-store",
                oxiaUrl,
                "--configuration-metadata-store",
                oxiaUrl,
                "--web-service-url",
                "http://127.0.0.1:" + webPort,
                "--broker-service-url",
                "pulsar://127.0.0.1:" + brokerPort);
        assertThat(setup.exitCode())
                .as("Pulsar's cluster metadata setup: %s", setup)
                .isZero();

        // The install, as the README says, with this class's addresses.
        String[] args = installArgs();
        StockPulsarHome.CommandResult install = home.install(args);
        assertThat(install.exitCode()).as("%s", install).isZero();
        installTranscript =
                "$ bin/lakestream-install " + home.dir() + " " + String.join(" ", args) + "\n" + install.output();
        Files.writeString(workDir.resolve("install-transcript.txt"), installTranscript);

        broker = new StockBroker(home, webPort, workDir.resolve("broker.log"))
                .start()
                .awaitServing(START);
    }

    /** The arguments the install ran with: the storage on this class's S3Proxy and Oxia, then the class's own. */
    public String[] installArgs() {
        List<String> args = new ArrayList<>(List.of(
                "--diskless",
                "lakestream.s3.bucket=" + remote.bucket(),
                "lakestream.s3.endpoint=" + remote.s3().endpoint(),
                "lakestream.s3.region=" + remote.s3().region(),
                "lakestream.s3.accessKeyId=" + remote.s3().accessKey(),
                "lakestream.s3.secretAccessKey=" + remote.s3().secretKey(),
                "lakestream.oxia.serviceAddress=" + remote.oxia().serviceAddress(),
                "lakestream.writer.flushDelay=5ms"));
        installSettings.apply(this).forEach((k, v) -> args.add(k + "=" + v));
        return args.toArray(String[]::new);
    }

    /** Stops the broker ({@code SIGTERM}) and starts it again from the same home, its output in {@code logName}. */
    public StockBroker restart(String logName) throws IOException, InterruptedException {
        broker.stop();
        broker =
                new StockBroker(home, webPort, workDir.resolve(logName)).start().awaitServing(START);
        return broker;
    }

    /**
     * A test that fails because the broker stopped says so in its message (a CI log shows the failures' messages, not
     * the broker's log): the exit code, the lines where the broker began to stop and the errors before them.
     */
    @Override
    public void handleTestExecutionException(ExtensionContext context, Throwable failure) throws Throwable {
        String diagnosis = broker == null ? "" : broker.diagnosis();
        if (diagnosis.isEmpty()) {
            throw failure;
        }
        AssertionError stopped = new AssertionError("the broker stopped serving: " + diagnosis, failure);
        System.err.println(context.getDisplayName() + ": " + stopped.getMessage());
        throw stopped;
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        for (AutoCloseable c : new AutoCloseable[] {broker, remote}) {
            if (c != null) {
                try {
                    c.close();
                } catch (Exception e) {
                    // keep closing the others
                }
            }
        }
    }

    /** {@code tests/target/<name>}: the home, the logs, the install transcript. */
    public Path workDir() {
        return workDir;
    }

    public S3ProxyServer s3() {
        return remote.s3();
    }

    public String bucket() {
        return remote.bucket();
    }

    public OxiaServer oxia() {
        return remote.oxia();
    }

    public StockPulsarHome home() {
        return home;
    }

    public StockBroker broker() {
        return broker;
    }

    public String clusterName() {
        return clusterName;
    }

    /** The binary protocol's URL, {@code pulsar://127.0.0.1:<port>}. */
    public String serviceUrl() {
        return "pulsar://127.0.0.1:" + brokerPort;
    }

    public String webServiceUrl() {
        return broker.webServiceUrl();
    }

    /** The command line and output of the install, as a user would see them. */
    public String installTranscript() {
        return installTranscript;
    }

    /** A free TCP port on the loopback address. */
    public static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
