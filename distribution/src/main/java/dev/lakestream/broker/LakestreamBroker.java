package dev.lakestream.broker;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.pulsar.PulsarClusterMetadataSetup;
import org.apache.pulsar.broker.PulsarService;
import org.apache.pulsar.broker.ServiceConfiguration;
import org.apache.pulsar.common.configuration.PulsarConfigurationLoader;
import org.apache.pulsar.metadata.api.MetadataStoreConfig;
import org.apache.pulsar.metadata.api.extended.MetadataStoreExtended;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;

/**
 * Starts one Pulsar broker from a configuration file, the way {@code bin/run-broker} does:
 *
 * <ol>
 *   <li>reads the file, replaces {@code ${LAKESTREAM_DATA_DIR}} in its values with the absolute data directory, and
 *       applies {@code key=value} overrides from the command line;</li>
 *   <li>checks that the configured managed-ledger storage class can be loaded, and says plainly what is missing when
 *       it cannot;</li>
 *   <li>writes the cluster metadata (cluster, tenants {@code public} and {@code pulsar}, namespace
 *       {@code public/default}) with Pulsar's own {@link PulsarClusterMetadataSetup} when the cluster does not exist
 *       yet: before the broker opens the metadata store, never beside it, since a {@code rocksdb://} store admits
 *       one user at a time. On ZooKeeper stores (hybrid mode) {@link ZooKeeperClusterSetup} writes the same nodes
 *       instead, since Pulsar's tool would also need DistributedLog there;</li>
 *   <li>starts the broker and prints its service URL and admin URL.</li>
 * </ol>
 *
 * <pre>
 * LakestreamBroker --broker-conf FILE [--data-dir DIR] [--setup-only] [key=value ...]
 * </pre>
 *
 * {@code bin/run-broker} runs it with {@code --setup-only} (steps 1 to 3) on the stock Pulsar home it installed the
 * release bundle into, then starts Pulsar's own {@code PulsarBrokerStarter} from that home. The tests start their
 * in-process brokers through {@link #loadConfiguration} and {@link #setupClusterIfAbsent}, and their broker processes
 * through {@link #main}.
 *
 * The data directory defaults to the {@code LAKESTREAM_DATA_DIR} environment variable, else {@code ./data}.
 */
public final class LakestreamBroker {

    /** The placeholder a configuration value may contain; replaced by the absolute data directory. */
    public static final String DATA_DIR_PLACEHOLDER = "${LAKESTREAM_DATA_DIR}";

    public static final String DATA_DIR_ENV = "LAKESTREAM_DATA_DIR";

    static final String USAGE =
            "usage: LakestreamBroker --broker-conf FILE [--data-dir DIR] [--setup-only] [key=value ...]";

    private static final Pattern UNRESOLVED = Pattern.compile("\\$\\{([^}]*)}");

    private LakestreamBroker() {}

    public static void main(String[] args) throws Exception {
        try {
            run(args);
        } catch (IllegalArgumentException | IllegalStateException e) {
            // A configuration or usage problem: the message says it all.
            System.err.println("LakestreamBroker: " + e.getMessage());
            System.exit(2);
        }
    }

    static void run(String... args) throws Exception {
        Options options;
        try {
            options = Options.parse(args);
        } catch (ParameterException e) {
            throw usage(e.getMessage());
        }
        if (options.help) {
            System.out.println(USAGE);
            return;
        }
        Map<String, String> overrides = new LinkedHashMap<>();
        for (String a : options.overrides) {
            int eq = a.indexOf('=');
            if (eq <= 0) {
                throw usage("unexpected argument '" + a + "'");
            }
            overrides.put(a.substring(0, eq), a.substring(eq + 1));
        }
        Path confFile = options.confFile;
        if (confFile == null) {
            throw usage("--broker-conf FILE is required");
        }
        Path dataDir = options.dataDir;
        if (dataDir == null) {
            String env = System.getenv(DATA_DIR_ENV);
            dataDir = Path.of(env == null || env.isBlank() ? "data" : env);
        }
        dataDir = dataDir.toAbsolutePath().normalize();
        Files.createDirectories(dataDir);

        ServiceConfiguration conf = loadConfiguration(confFile, dataDir, overrides);
        requireStorageClass(conf);
        setupClusterIfAbsent(conf);
        if (options.setupOnly) {
            return;
        }

        PulsarService pulsar = new PulsarService(conf);
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            try {
                                pulsar.close();
                            } catch (Exception e) {
                                System.err.println("Error while stopping the broker: " + e);
                            }
                        },
                        "broker-shutdown"));
        try {
            pulsar.start();
        } catch (Exception e) {
            System.err.println();
            System.err.println("The broker failed to start: " + rootMessage(e));
            System.err.println("(full stack trace above; configuration: " + confFile.toAbsolutePath() + ")");
            Runtime.getRuntime().halt(1);
        }

        System.out.println();
        String mode = conf.getProperties().getProperty("lakestreamStorageMode");
        System.out.println("Pulsar broker is running (cluster " + conf.getClusterName() + ", storage "
                + conf.getManagedLedgerStorageClassName() + (mode == null ? "" : ", mode " + mode) + ")");
        System.out.println("  service URL: " + pulsar.getBrokerServiceUrl());
        System.out.println("  admin URL:   " + pulsar.getWebServiceAddress());
        System.out.println("  data:        " + dataDir);
        System.out.println("Stop it with Ctrl-C; its data stays in the data directory.");
        System.out.println();
        pulsar.waitUntilClosed();
    }

    /**
     * Reads a broker configuration file: {@code ${LAKESTREAM_DATA_DIR}} in any value becomes {@code dataDir}, then
     * {@code overrides} replace or add keys. Any other {@code ${...}} left in a value is an error, so that a typo in a
     * placeholder does not become a directory name. Keys Pulsar does not know stay in
     * {@link ServiceConfiguration#getProperties()}, where plugins read them.
     */
    public static ServiceConfiguration loadConfiguration(Path confFile, Path dataDir, Map<String, String> overrides)
            throws IOException {
        Properties props = new Properties();
        try (Reader r = Files.newBufferedReader(confFile, StandardCharsets.UTF_8)) {
            props.load(r);
        }
        return toServiceConfiguration(props, dataDir, overrides);
    }

    /** As {@link #loadConfiguration}, from properties already read. */
    public static ServiceConfiguration toServiceConfiguration(
            Properties source, Path dataDir, Map<String, String> overrides) throws IOException {
        Properties props = new Properties();
        String dir = dataDir.toAbsolutePath().normalize().toString();
        List<String> unresolved = new ArrayList<>();
        for (String key : source.stringPropertyNames()) {
            props.setProperty(key, source.getProperty(key).trim().replace(DATA_DIR_PLACEHOLDER, dir));
        }
        overrides.forEach(props::setProperty);
        for (String key : props.stringPropertyNames()) {
            Matcher m = UNRESOLVED.matcher(props.getProperty(key));
            if (m.find()) {
                unresolved.add(key + "=" + props.getProperty(key));
            }
        }
        if (!unresolved.isEmpty()) {
            throw new IllegalArgumentException(
                    "Unknown placeholder in " + unresolved + ": only " + DATA_DIR_PLACEHOLDER + " is replaced");
        }
        return PulsarConfigurationLoader.create(props, ServiceConfiguration.class);
    }

    /** Fails with a readable message when the configured managed-ledger storage class cannot be loaded. */
    public static void requireStorageClass(ServiceConfiguration conf) {
        String name = conf.getManagedLedgerStorageClassName();
        try {
            Class.forName(name, false, Thread.currentThread().getContextClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            throw new IllegalStateException(
                    "The managed-ledger storage class " + name + " (managedLedgerStorageClassName)"
                            + " cannot be loaded: " + e + ". It comes from the pulsar-managedledger-lakestream module; "
                            + "build it (bin/run-broker does) or check the class name in the configuration.",
                    e);
        }
    }

    /**
     * Writes the cluster metadata with Pulsar's own setup tool when the configured cluster does not exist yet in the
     * configuration metadata store ({@link ZooKeeperClusterSetup} on ZooKeeper stores). The store is opened and
     * closed again before the broker starts.
     */
    public static void setupClusterIfAbsent(ServiceConfiguration conf) throws Exception {
        String cluster = conf.getClusterName();
        if (cluster == null || cluster.isBlank()) {
            throw new IllegalArgumentException("clusterName is not set in the broker configuration");
        }
        String configStore = conf.getConfigurationMetadataStoreUrl() != null
                ? conf.getConfigurationMetadataStoreUrl()
                : conf.getMetadataStoreUrl();
        // Some stores (Oxia) retry an unreachable server forever: bound the wait, and say which store it was.
        CompletableFuture<Boolean> check = new CompletableFuture<>();
        Thread checker = new Thread(
                () -> {
                    boolean found;
                    try (MetadataStoreExtended store = MetadataStoreExtended.create(
                            configStore,
                            MetadataStoreConfig.builder()
                                    .metadataStoreName("lakestream-setup-check")
                                    .build())) {
                        found = store.exists("/admin/clusters/" + cluster).get();
                    } catch (Throwable t) {
                        check.completeExceptionally(t);
                        return;
                    }
                    // Only once the store is closed: RocksDB allows one open instance of a directory per process.
                    check.complete(found);
                },
                "cluster-metadata-check");
        checker.setDaemon(true);
        checker.start();
        long timeout = Math.max(conf.getMetadataStoreOperationTimeoutSeconds(), 10);
        boolean exists;
        try {
            exists = check.get(timeout, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            throw new IllegalStateException("The metadata store " + configStore + " did not answer within " + timeout
                    + " s (configurationMetadataStoreUrl / metadataStoreUrl): is it running and reachable?");
        } catch (ExecutionException e) {
            throw new IllegalStateException(
                    "Could not read the metadata store " + configStore + ": " + e.getCause(), e.getCause());
        }
        if (exists) {
            return;
        }
        String host = conf.getAdvertisedAddress() != null ? conf.getAdvertisedAddress() : "127.0.0.1";
        String webUrl = "http://" + host + ":" + conf.getWebServicePort().orElse(8080);
        String brokerUrl =
                "pulsar://" + host + ":" + conf.getBrokerServicePort().orElse(6650);
        if (ZooKeeperClusterSetup.applies(conf.getMetadataStoreUrl(), configStore)) {
            // Pulsar's tool would also need DistributedLog on ZooKeeper, which the distribution leaves out.
            ZooKeeperClusterSetup.run(cluster, conf.getMetadataStoreUrl(), configStore, webUrl, brokerUrl, (int)
                    conf.getMetadataStoreSessionTimeoutMillis());
            return;
        }
        PulsarClusterMetadataSetup.main(new String[] {
            "--cluster", cluster,
            "--metadata-store", conf.getMetadataStoreUrl(),
            "--configuration-metadata-store", configStore,
            "--web-service-url", webUrl,
            "--broker-service-url", brokerUrl,
        });
    }

    /** The command line: what {@link #USAGE} describes. */
    @Command(name = "LakestreamBroker")
    static final class Options {
        @Option(
                names = {"--broker-conf", "-c"},
                paramLabel = "FILE")
        Path confFile;

        /** Null: {@code LAKESTREAM_DATA_DIR}, else {@code ./data}. */
        @Option(names = "--data-dir", paramLabel = "DIR")
        Path dataDir;

        @Option(names = "--setup-only")
        boolean setupOnly;

        @Option(
                names = {"-h", "--help"},
                usageHelp = true)
        boolean help;

        /** {@code key=value}: replaces or adds a key of the configuration file. */
        @Parameters(paramLabel = "key=value")
        List<String> overrides = new ArrayList<>();

        /**
         * Fails naming the option that is unknown, lacks its value or has a bad one. An option given twice takes its
         * last value; an argument starting with {@code @} is itself, not a file of arguments.
         */
        static Options parse(String... args) {
            Options options = new Options();
            new CommandLine(options)
                    .setOverwrittenOptionsAllowed(true)
                    .setExpandAtFiles(false)
                    .parseArgs(args);
            return options;
        }
    }

    private static IllegalArgumentException usage(String message) {
        return new IllegalArgumentException(message + "\n" + USAGE);
    }

    @SuppressWarnings("ReferenceEquality") // walks to the very root exception: identity is what is compared
    private static String rootMessage(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root == t ? String.valueOf(t) : t + " (caused by " + root + ")";
    }
}
