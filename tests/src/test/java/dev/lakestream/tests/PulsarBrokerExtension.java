package dev.lakestream.tests;

import dev.lakestream.broker.LakestreamBroker;
import dev.lakestream.testkit.OxiaServer;
import dev.lakestream.testkit.RemoteStores;
import dev.lakestream.testkit.S3ProxyServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.apache.pulsar.broker.PulsarService;
import org.apache.pulsar.broker.ServiceConfiguration;
import org.apache.pulsar.client.admin.PulsarAdmin;
import org.apache.pulsar.client.admin.PulsarAdminBuilder;
import org.apache.pulsar.client.api.ClientBuilder;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.PulsarClientException;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real Pulsar 5.0.1 broker ({@link PulsarService}) in the test JVM, on Lakestream, diskless. Register it on a
 * static field for one broker per test class, or on an instance field for one per test:
 *
 * <pre>{@code
 * @RegisterExtension
 * static final PulsarBrokerExtension BROKER = PulsarBrokerExtension.embedded();
 *
 * try (PulsarClient client = BROKER.newClient()) { ... }
 * BROKER.admin().tenants().getTenants();
 * BROKER.restart();   // same ports, same data
 * }</pre>
 *
 * <p>Its configuration is the one a user runs, read from the repository's {@code conf/} directory:
 * <ul>
 *   <li>{@link #embedded()}: {@code conf/broker-diskless-embedded.conf} (what {@code bin/run-broker} starts), with its
 *       data directory in a fresh temporary directory: Pulsar's metadata in {@code rocksdb://}, the objects in a local
 *       directory, Lakestream's metadata in the embedded store;</li>
 *   <li>{@link #onS3ProxyAndOxia()}: {@code conf/broker-diskless.conf}, pointed at a real S3Proxy (a fresh bucket)
 *       and a real Oxia server started through the test kit, which hold all the data and metadata;</li>
 *   <li>{@link #hybrid(BookKeeperEnsembleExtension)}: {@code conf/broker-hybrid.conf}, hybrid mode: BookKeeper the
 *       default storage (the given in-process ZooKeeper + bookies, ZooKeeper also holding Pulsar's metadata),
 *       Lakestream on a fresh bucket of a real S3Proxy and a real Oxia server, and the Lakestream broker plugin (the
 *       NAR packaged by {@code pulsar-protocol-handler}: run such tests with {@code package}, not {@code test}).</li>
 * </ul>
 * The ports are free ones chosen once, so a {@link #restart()} keeps them and clients reconnect. Fsync is off in the
 * embedded stores (a test stops processes, it does not lose machines). {@link #config(String, String)} overrides any
 * key, and so do system properties {@value #SYSTEM_PROPERTY_PREFIX}{@code KEY} for a whole run. The cluster metadata
 * is written before the first start as {@code bin/run-broker} writes it.
 *
 * <p>Clients made by {@link #newClient()} and {@link #newAdmin()} are closed when the broker stops for good (not on a
 * restart); tests may close them earlier. Also usable without JUnit ({@link #start()}, {@link #close()}), e.g. by the
 * broker benchmark.
 */
public final class PulsarBrokerExtension
        implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(PulsarBrokerExtension.class);

    /** The storage plugin the configurations name. */
    public static final String STORAGE_CLASS = "dev.lakestream.pulsar.LakestreamManagedLedgerStorage";

    /**
     * System properties {@code lakestream.tests.broker.KEY=VALUE} set broker configuration keys over everything else,
     * for a whole run: {@code bin/test -pl tests -Dlakestream.tests.broker.lakestream.writer.flushDelay=10ms}.
     */
    public static final String SYSTEM_PROPERTY_PREFIX = "lakestream.tests.broker.";

    /** The broker plugin's interceptor name, from its broker_interceptor.yml. */
    public static final String PLUGIN_NAME = "lakestream";

    /** Where the stores of the broker live. */
    public enum Stores {
        /** A local directory and the embedded metadata store, under the broker's data directory. */
        EMBEDDED,
        /** A bucket of a real S3Proxy server and a real Oxia server (Pulsar's metadata there too). */
        S3PROXY_AND_OXIA,
        /**
         * Hybrid mode: in-process ZooKeeper + bookies (BookKeeper, the default storage; Pulsar's metadata in
         * ZooKeeper), a bucket of a real S3Proxy server and a real Oxia server (Lakestream).
         */
        HYBRID
    }

    private final Stores stores;
    /** The bookies of a {@link Stores#HYBRID} broker. */
    private final BookKeeperEnsembleExtension bk;
    /** Whether this extension started {@link #bk} (and so stops it), or found it running (registered on its own). */
    private boolean ownsBookKeeper;

    private final Map<String, String> overrides = new LinkedHashMap<>();
    private final List<AutoCloseable> clients = new ArrayList<>();

    private boolean perClass;
    private Path dataDir;
    private int brokerPort;
    private int webPort;
    private RemoteStores remote;
    private ServiceConfiguration conf;
    private PulsarService pulsar;
    private PulsarAdmin admin;

    private PulsarBrokerExtension(Stores stores, BookKeeperEnsembleExtension bk) {
        this.stores = stores;
        this.bk = bk;
    }

    /** A broker on {@code conf/broker-diskless-embedded.conf}, its data in a temporary directory. */
    public static PulsarBrokerExtension embedded() {
        return new PulsarBrokerExtension(Stores.EMBEDDED, null);
    }

    /** A broker on {@code conf/broker-diskless.conf}, on its own S3Proxy and Oxia servers (from the test kit). */
    public static PulsarBrokerExtension onS3ProxyAndOxia() {
        return new PulsarBrokerExtension(Stores.S3PROXY_AND_OXIA, null);
    }

    /**
     * A broker in hybrid mode on {@code conf/broker-hybrid.conf}: BookKeeper on {@code bookkeeper} (started with the
     * broker and stopped with it, unless it is already running, e.g. registered as an extension of its own), Lakestream
     * on its own S3Proxy and Oxia servers, the broker plugin loaded. The managed ledgers' copies (ensemble, quorums)
     * are as many as there are bookies, at most 2.
     */
    public static PulsarBrokerExtension hybrid(BookKeeperEnsembleExtension bookkeeper) {
        if (bookkeeper == null) {
            throw new IllegalArgumentException("hybrid() needs a BookKeeperEnsembleExtension");
        }
        return new PulsarBrokerExtension(Stores.HYBRID, bookkeeper);
    }

    /** Sets a broker configuration key (Pulsar's or {@code lakestream.*}), over the configuration file's value. */
    public PulsarBrokerExtension config(String key, String value) {
        overrides.put(key, value);
        return this;
    }

    // ---------------------------------------------------------------------------------------------- JUnit callbacks

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        perClass = true;
        start();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        close();
    }

    @Override
    public void beforeEach(ExtensionContext context) throws Exception {
        if (!perClass) {
            start();
        }
    }

    @Override
    public void afterEach(ExtensionContext context) {
        if (!perClass) {
            close();
        }
    }

    // ---------------------------------------------------------------------------------------------------- lifecycle

    /** Starts the broker (and, the first time, its servers and cluster metadata); returns once it serves. */
    public synchronized void start() throws Exception {
        if (pulsar != null) {
            throw new IllegalStateException("the broker is already running");
        }
        if (conf == null) {
            prepare();
        }
        long t0 = System.nanoTime();
        // A fresh configuration object for each start: PulsarService keeps state in it.
        ServiceConfiguration c = configuration();
        PulsarService p = new PulsarService(c);
        try {
            p.start();
        } catch (Exception e) {
            closeQuietly(p);
            throw new IllegalStateException(
                    "The broker did not start (" + stores + ", storage " + c.getManagedLedgerStorageClassName() + "): "
                            + e,
                    e);
        }
        pulsar = p;
        conf = c;
        LOG.info(
                "Broker started in {} ms: {} {} ({}, data {})",
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0),
                p.getBrokerServiceUrl(),
                p.getWebServiceAddress(),
                stores,
                dataDir);
    }

    /**
     * Stops the broker cleanly and starts it again, on the same ports and the same data (and the same S3Proxy and
     * Oxia servers). Clients made before keep working once they reconnect.
     */
    public synchronized void restart() throws Exception {
        stopBroker();
        start();
    }

    /** Stops the broker; {@link #start()} starts it again on the same data. */
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

    /** Stops everything: clients, broker, servers (the bookies if this extension started them); deletes the data. */
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
        if (remote != null) {
            closeQuietly(remote);
            remote = null;
        }
        if (ownsBookKeeper) {
            closeQuietly(bk);
            ownsBookKeeper = false;
        }
        if (dataDir != null) {
            deleteRecursively(dataDir);
            dataDir = null;
        }
        conf = null;
    }

    // ------------------------------------------------------------------------------------------------------ access

    /** The running broker. */
    public synchronized PulsarService pulsar() {
        if (pulsar == null) {
            throw new IllegalStateException("The broker is not running (register the extension with "
                    + "@RegisterExtension, and use it from tests)");
        }
        return pulsar;
    }

    /** The configuration the broker runs with. */
    public synchronized ServiceConfiguration configuration() throws IOException {
        if (dataDir == null) {
            throw new IllegalStateException("The broker was never started");
        }
        Map<String, String> all = new LinkedHashMap<>(fixedOverrides());
        all.putAll(overrides);
        System.getProperties().stringPropertyNames().stream()
                .filter(k -> k.startsWith(SYSTEM_PROPERTY_PREFIX))
                .forEach(k -> all.put(k.substring(SYSTEM_PROPERTY_PREFIX.length()), System.getProperty(k)));
        return LakestreamBroker.loadConfiguration(confFile(), dataDir, all);
    }

    public Stores stores() {
        return stores;
    }

    /** {@code pulsar://127.0.0.1:<port>}. */
    public String brokerServiceUrl() {
        return "pulsar://127.0.0.1:" + brokerPort;
    }

    /** {@code http://127.0.0.1:<port>}. */
    public String webServiceUrl() {
        return "http://127.0.0.1:" + webPort;
    }

    /** The broker's data directory (the objects and the embedded stores live there in the embedded mode). */
    public Path dataDir() {
        return dataDir;
    }

    /** The directory of the objects in the embedded mode ({@code lakestream.fs.root}). */
    public Path objectsDir() {
        return dataDir.resolve("objects");
    }

    /** The bookies ({@link Stores#HYBRID} only). */
    public BookKeeperEnsembleExtension bookkeeper() {
        if (bk == null) {
            throw new IllegalStateException("no bookies: this broker runs on " + stores);
        }
        return bk;
    }

    /** The S3Proxy server ({@link Stores#S3PROXY_AND_OXIA} and {@link Stores#HYBRID}). */
    public S3ProxyServer s3() {
        return remote().s3();
    }

    /** The bucket of the broker's objects ({@link Stores#S3PROXY_AND_OXIA} and {@link Stores#HYBRID}). */
    public String bucket() {
        return remote().bucket();
    }

    /** The Oxia server ({@link Stores#S3PROXY_AND_OXIA} and {@link Stores#HYBRID}). */
    public OxiaServer oxia() {
        return remote().oxia();
    }

    private RemoteStores remote() {
        if (remote == null) {
            throw new IllegalStateException("no S3Proxy and Oxia: this broker runs on " + stores);
        }
        return remote;
    }

    /** A new client of this broker, closed with the extension. */
    public PulsarClient newClient() throws PulsarClientException {
        return newClient(b -> {});
    }

    /** A new client of this broker with more settings, closed with the extension. */
    public PulsarClient newClient(Consumer<ClientBuilder> customizer) throws PulsarClientException {
        ClientBuilder b = PulsarClient.builder().serviceUrl(brokerServiceUrl()).operationTimeout(15, TimeUnit.SECONDS);
        customizer.accept(b);
        PulsarClient client = b.build();
        synchronized (this) {
            clients.add(client);
        }
        return client;
    }

    /** A new admin client of this broker, closed with the extension. */
    public PulsarAdmin newAdmin() throws PulsarClientException {
        PulsarAdmin a = adminBuilder().build();
        synchronized (this) {
            clients.add(a);
        }
        return a;
    }

    /** An admin client of this broker, shared by the tests; renewed after a restart. */
    public synchronized PulsarAdmin admin() throws PulsarClientException {
        pulsar();
        if (admin == null) {
            admin = adminBuilder().build();
        }
        return admin;
    }

    private PulsarAdminBuilder adminBuilder() {
        return PulsarAdmin.builder()
                .serviceHttpUrl(webServiceUrl())
                .connectionTimeout(10, TimeUnit.SECONDS)
                .readTimeout(30, TimeUnit.SECONDS)
                .requestTimeout(60, TimeUnit.SECONDS);
    }

    // --------------------------------------------------------------------------------------------------- internals

    /** Data directory, ports, servers, cluster metadata: what the first start needs. */
    private void prepare() throws Exception {
        dataDir = Files.createTempDirectory("pulsar-broker-");
        brokerPort = freePort();
        webPort = freePort();
        try {
            if (stores == Stores.HYBRID && !bk.running()) {
                bk.start();
                ownsBookKeeper = true;
            }
            if (stores != Stores.EMBEDDED) {
                remote = RemoteStores.start("broker");
            }
        } catch (Exception | Error e) {
            close();
            throw e;
        }
        // Written by the launcher of bin/run-broker, before the broker opens the metadata store.
        LakestreamBroker.setupClusterIfAbsent(configuration());
        conf = configuration();
    }

    /**
     * Ports and sizes of a test broker, in this JVM or in its own ({@link BrokerProcess}): on 127.0.0.1, with
     * small thread pools and caches for a 2-core machine running several brokers over a run.
     */
    static Map<String, String> localBrokerSettings(int brokerPort, int webPort) {
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
        return m;
    }

    /** What a test broker sets over the configuration file, before {@link #config} overrides. */
    private Map<String, String> fixedOverrides() {
        Map<String, String> m = localBrokerSettings(brokerPort, webPort);
        // Do not wait for topics to unload gracefully when a test stops the broker.
        m.put("brokerShutdownTimeoutMs", "0");
        // No load balancing in a single-broker test cluster.
        m.put("loadBalancerEnabled", "false");
        // The broker plugin (storage-class guard), as bin/run-broker provides it: every configuration names it.
        m.put("brokerInterceptorsDirectory", pluginDirectory().toString());
        m.put("brokerInterceptors", PLUGIN_NAME);
        // The same NAR as protocol handler: the background services (GC, metrics), as an installed broker runs them.
        m.put("protocolHandlerDirectory", pluginDirectory().toString());
        m.put("messagingProtocols", PLUGIN_NAME);
        m.put("narExtractionDirectory", dataDir.resolve("nar").toString());
        switch (stores) {
            case EMBEDDED -> {
                m.put("lakestream.fs.fsync", "false");
                m.put("lakestream.embedded.sync", "false");
            }
            case S3PROXY_AND_OXIA -> {
                String oxiaUrl = remote.oxiaMetadataStoreUrl();
                m.put("metadataStoreUrl", oxiaUrl);
                m.put("configurationMetadataStoreUrl", oxiaUrl);
                putLakestreamStores(m);
            }
            case HYBRID -> {
                m.put("metadataStoreUrl", bk.metadataStoreUrl());
                m.put("configurationMetadataStoreUrl", bk.metadataStoreUrl());
                String copies = Integer.toString(Math.min(bk.bookies(), 2));
                m.put("managedLedgerDefaultEnsembleSize", copies);
                m.put("managedLedgerDefaultWriteQuorum", copies);
                m.put("managedLedgerDefaultAckQuorum", copies);
                putLakestreamStores(m);
            }
            default -> throw new IllegalStateException(stores.toString());
        }
        return m;
    }

    /** Where the Lakestream storage keeps its objects and its index: this extension's S3Proxy bucket and Oxia. */
    private void putLakestreamStores(Map<String, String> m) {
        m.putAll(remote.lakestreamSettings());
    }

    /** The directory holding the broker plugin's NAR, packaged by the module pulsar-protocol-handler. */
    static Path pluginDirectory() {
        Path dir = projectDir().resolve("pulsar-protocol-handler").resolve("target");
        if (Files.isDirectory(dir)) {
            try (DirectoryStream<Path> nars = Files.newDirectoryStream(dir, "*.nar")) {
                if (nars.iterator().hasNext()) {
                    return dir;
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        throw new IllegalStateException("No Lakestream broker plugin (*.nar) in " + dir + ": package the module "
                + "pulsar-protocol-handler first (run the tests with 'package', e.g. ./mvnw -pl tests -am package"
                + " -Dtest=HybridModeTest, or bin/test)");
    }

    private Path confFile() {
        String name = switch (stores) {
            case EMBEDDED -> "broker-diskless-embedded.conf";
            case S3PROXY_AND_OXIA -> "broker-diskless.conf";
            case HYBRID -> "broker-hybrid.conf";
        };
        return projectDir().resolve("conf").resolve(name);
    }

    /** The repository root: from surefire's {@code lakestream.projectDir}, else the parent of the module. */
    public static Path projectDir() {
        String p = System.getProperty("lakestream.projectDir");
        Path dir = p != null && !p.isBlank()
                ? Path.of(p)
                : Path.of("").toAbsolutePath().getParent();
        if (!Files.isDirectory(dir.resolve("conf"))) {
            throw new IllegalStateException("No conf/ directory in " + dir
                    + " (set the system property lakestream.projectDir to the repository root)");
        }
        return dir;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        }
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            LOG.warn("Error while closing {}", c, e);
        }
    }

    private static void deleteRecursively(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException | UncheckedIOException e) {
            LOG.warn("Could not delete {}", dir, e);
        }
    }
}
