package dev.lakestream.tests;

import dev.lakestream.broker.LakestreamBroker;
import dev.lakestream.testkit.OxiaServer;
import dev.lakestream.testkit.S3ProxyServer;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.pulsar.broker.PulsarService;
import org.apache.pulsar.broker.ServiceConfiguration;
import org.apache.pulsar.client.admin.PulsarAdmin;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.PulsarClientException;
import org.apache.pulsar.common.policies.data.ClusterData;
import org.apache.pulsar.common.policies.data.TenantInfo;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real Pulsar 5.0.1 broker in hybrid mode in the test JVM, from {@code conf/broker-hybrid.conf}: BookKeeper is the
 * default storage (an in-process ZooKeeper + bookies, {@link BookKeeperEnsembleExtension}, ZooKeeper also holding
 * Pulsar's metadata), Lakestream the storage of namespaces that choose it (a fresh bucket on a real S3Proxy, a real
 * Oxia server, both from the test kit), and the Lakestream broker plugin (the NAR built by
 * {@code pulsar-protocol-handler}) loaded as the broker interceptor. One per test class (static field):
 *
 * <pre>{@code
 * @RegisterExtension
 * static final HybridBrokerExtension BROKER = new HybridBrokerExtension();
 * }</pre>
 *
 * The NAR must have been packaged: run the tests with {@code package} or {@code install} ({@code bin/test}, or
 * {@code ./mvnw -pl tests -am package -Dtest=HybridModeTest}); {@code test} alone does not build it.
 *
 * <p>Also usable without JUnit ({@link #start()}, {@link #close()}), by the broker benchmark.
 *
 * <p>To be merged later: this duplicates the lifecycle of {@code PulsarBrokerExtension} (ports, overrides,
 * clients); a {@code PulsarBrokerExtension.hybrid()} factory taking a {@link BookKeeperEnsembleExtension} would
 * replace it.
 */
public final class HybridBrokerExtension implements BeforeAllCallback, AfterAllCallback, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(HybridBrokerExtension.class);

    /** The interceptor's name, from the plugin's broker_interceptor.yml. */
    public static final String PLUGIN_NAME = "lakestream";

    private final Map<String, String> overrides = new LinkedHashMap<>();
    private final List<AutoCloseable> clients = new ArrayList<>();
    private final int bookies;
    private final Map<String, Object> bookieSettings = new LinkedHashMap<>();

    private BookKeeperEnsembleExtension bk;
    private S3ProxyServer s3;
    private OxiaServer oxia;
    private String bucket;
    private Path dataDir;
    private int brokerPort;
    private int webPort;
    private PulsarService pulsar;
    private PulsarAdmin admin;

    public HybridBrokerExtension() {
        this(1);
    }

    public HybridBrokerExtension(int bookies) {
        this.bookies = bookies;
    }

    /** Sets a broker key over the configuration file's value. */
    public HybridBrokerExtension config(String key, String value) {
        overrides.put(key, value);
        return this;
    }

    /** Sets a bookie configuration key (see {@link BookKeeperEnsembleExtension#bookieSetting}). */
    public HybridBrokerExtension bookieSetting(String key, Object value) {
        bookieSettings.put(key, value);
        return this;
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        start();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        close();
    }

    /** Starts the servers (the first time) and the broker; returns once the broker serves. */
    public synchronized void start() throws Exception {
        if (pulsar != null) {
            throw new IllegalStateException("the broker is already running");
        }
        if (dataDir == null) {
            prepare();
        }
        long t0 = System.nanoTime();
        ServiceConfiguration c = configuration();
        PulsarService p = new PulsarService(c);
        try {
            p.start();
        } catch (Exception e) {
            try {
                p.close();
            } catch (Exception suppressed) {
                e.addSuppressed(suppressed);
            }
            throw new IllegalStateException("The hybrid broker did not start: " + e, e);
        }
        pulsar = p;
        createClusterIfAbsent();
        LOG.info("Hybrid broker started in {} ms: {} {} (ZooKeeper {}, bucket {}, Oxia {})",
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0), p.getBrokerServiceUrl(),
                p.getWebServiceAddress(), bk.zookeeperAddress(), bucket, oxia.serviceAddress());
    }

    /** Stops the broker cleanly and starts it again on the same ports, bookies, bucket and Oxia server. */
    public synchronized void restart() throws Exception {
        stopBroker();
        start();
    }

    public synchronized void stopBroker() throws Exception {
        if (admin != null) {
            admin.close();
            admin = null;
        }
        if (pulsar != null) {
            PulsarService p = pulsar;
            pulsar = null;
            p.close();
        }
    }

    /** Stops clients, broker and servers; deletes the data. */
    @Override
    public synchronized void close() {
        for (AutoCloseable c : clients) {
            closeQuietly(c);
        }
        clients.clear();
        try {
            stopBroker();
        } catch (Exception e) {
            LOG.warn("Error while stopping the broker", e);
        }
        for (AutoCloseable c : new AutoCloseable[] {oxia, s3, bk}) {
            if (c != null) {
                closeQuietly(c);
            }
        }
        oxia = null;
        s3 = null;
        bk = null;
        if (dataDir != null) {
            TestFiles.deleteRecursively(dataDir);
            dataDir = null;
        }
    }

    public synchronized PulsarService pulsar() {
        if (pulsar == null) {
            throw new IllegalStateException("The hybrid broker is not running");
        }
        return pulsar;
    }

    public BookKeeperEnsembleExtension bookkeeper() {
        return bk;
    }

    public S3ProxyServer s3() {
        return s3;
    }

    public String bucket() {
        return bucket;
    }

    public OxiaServer oxia() {
        return oxia;
    }

    public String brokerServiceUrl() {
        return "pulsar://127.0.0.1:" + brokerPort;
    }

    public String webServiceUrl() {
        return "http://127.0.0.1:" + webPort;
    }

    /** A new client of this broker, closed with the extension. */
    public PulsarClient newClient() throws PulsarClientException {
        PulsarClient client = PulsarClient.builder().serviceUrl(brokerServiceUrl())
                .operationTimeout(15, TimeUnit.SECONDS).build();
        synchronized (this) {
            clients.add(client);
        }
        return client;
    }

    /** An admin client of this broker, shared; renewed after a restart. */
    public synchronized PulsarAdmin admin() throws PulsarClientException {
        pulsar();
        if (admin == null) {
            admin = PulsarAdmin.builder().serviceHttpUrl(webServiceUrl())
                    .connectionTimeout(10, TimeUnit.SECONDS).readTimeout(30, TimeUnit.SECONDS)
                    .requestTimeout(60, TimeUnit.SECONDS).build();
        }
        return admin;
    }

    /** The configuration the broker runs with: {@code conf/broker-hybrid.conf} and the test's addresses. */
    public synchronized ServiceConfiguration configuration() throws IOException {
        Map<String, String> all = new LinkedHashMap<>(fixedOverrides());
        all.putAll(overrides);
        System.getProperties().stringPropertyNames().stream()
                .filter(k -> k.startsWith(PulsarBrokerExtension.SYSTEM_PROPERTY_PREFIX))
                .forEach(k -> all.put(k.substring(PulsarBrokerExtension.SYSTEM_PROPERTY_PREFIX.length()),
                        System.getProperty(k)));
        return LakestreamBroker.loadConfiguration(confFile(), dataDir, all);
    }

    static Path confFile() {
        return PulsarBrokerExtension.projectDir().resolve("conf").resolve("broker-hybrid.conf");
    }

    /** The directory holding the plugin's NAR, built by the module pulsar-protocol-handler. */
    static Path pluginDirectory() throws IOException {
        Path dir = PulsarBrokerExtension.projectDir().resolve("pulsar-protocol-handler").resolve("target");
        if (Files.isDirectory(dir)) {
            try (DirectoryStream<Path> nars = Files.newDirectoryStream(dir, "*.nar")) {
                if (nars.iterator().hasNext()) {
                    return dir;
                }
            }
        }
        throw new IllegalStateException("No Lakestream broker plugin (*.nar) in " + dir + ": package the module "
                + "pulsar-protocol-handler first (run the tests with 'package', e.g. ./mvnw -pl tests -am package"
                + " -Dtest=HybridModeTest, or bin/test)");
    }

    private void prepare() throws Exception {
        dataDir = Files.createTempDirectory("pulsar-hybrid-");
        brokerPort = BookKeeperEnsembleExtension.freePort();
        webPort = BookKeeperEnsembleExtension.freePort();
        try {
            bk = new BookKeeperEnsembleExtension(bookies);
            bookieSettings.forEach(bk::bookieSetting);
            bk.start();
            s3 = S3ProxyServer.start();
            bucket = s3.createBucket();
            oxia = OxiaServer.create("hybrid").start();
        } catch (Exception | Error e) {
            close();
            throw e;
        }
    }

    /**
     * The cluster, tenants {@code public} and {@code pulsar} and namespace {@code public/default}, written through
     * the admin API once the broker runs (as {@code pulsar standalone} does). Pulsar's PulsarClusterMetadataSetup, which
     * {@code bin/run-broker} uses, cannot run here: on a ZooKeeper store it also initialises DistributedLog's
     * namespace for the functions worker, and the build leaves DistributedLog out.
     */
    private void createClusterIfAbsent() throws Exception {
        PulsarAdmin a = admin();
        String cluster = pulsar.getConfiguration().getClusterName();
        if (!a.clusters().getClusters().contains(cluster)) {
            a.clusters().createCluster(cluster, ClusterData.builder().serviceUrl(webServiceUrl())
                    .brokerServiceUrl(brokerServiceUrl()).build());
        }
        for (String tenant : List.of("public", "pulsar")) {
            if (!a.tenants().getTenants().contains(tenant)) {
                a.tenants().createTenant(tenant, TenantInfo.builder().allowedClusters(Set.of(cluster)).build());
            }
        }
        if (!a.namespaces().getNamespaces("public").contains("public/default")) {
            a.namespaces().createNamespace("public/default");
        }
    }

    private Map<String, String> fixedOverrides() throws IOException {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("bindAddress", "127.0.0.1");
        m.put("advertisedAddress", "127.0.0.1");
        m.put("brokerServicePort", Integer.toString(brokerPort));
        m.put("webServicePort", Integer.toString(webPort));
        m.put("numIOThreads", "2");
        m.put("numHttpServerThreads", "8");
        m.put("numExecutorThreadPoolSize", "2");
        m.put("numOrderedExecutorThreads", "2");
        m.put("managedLedgerCacheSizeMB", "32");
        m.put("brokerShutdownTimeoutMs", "0");
        m.put("loadBalancerEnabled", "false");
        m.put("metadataStoreUrl", bk.metadataStoreUrl());
        m.put("configurationMetadataStoreUrl", bk.metadataStoreUrl());
        // As many copies as there are bookies.
        String copies = Integer.toString(Math.min(bookies, 2));
        m.put("managedLedgerDefaultEnsembleSize", copies);
        m.put("managedLedgerDefaultWriteQuorum", copies);
        m.put("managedLedgerDefaultAckQuorum", copies);
        m.put("lakestream.s3.bucket", bucket);
        m.put("lakestream.s3.endpoint", s3.endpoint().toString());
        m.put("lakestream.s3.region", s3.region());
        m.put("lakestream.s3.pathStyleAccess", "true");
        m.put("lakestream.s3.accessKeyId", s3.accessKey());
        m.put("lakestream.s3.secretAccessKey", s3.secretKey());
        m.put("lakestream.oxia.serviceAddress", oxia.serviceAddress());
        m.put("brokerInterceptorsDirectory", pluginDirectory().toString());
        m.put("brokerInterceptors", PLUGIN_NAME);
        m.put("narExtractionDirectory", dataDir.resolve("nar").toString());
        return m;
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            LOG.warn("Error while closing {}", c, e);
        }
    }
}
