package dev.lakestream.tests;

import dev.lakestream.testkit.FaultyHttpProxy;
import dev.lakestream.testkit.OxiaServer;
import dev.lakestream.testkit.RemoteStores;
import dev.lakestream.testkit.S3ProxyServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Brokers in their own JVMs on {@code conf/broker-diskless.conf} (so a test can pause or kill them), sharing one real
 * Oxia server and one real S3Proxy bucket. S3Proxy is reached through a {@link FaultyHttpProxy}, which forwards every
 * request unchanged until a test injects a fault (refuse, black-hole, slow down, fail). Started with
 * {@link BrokerClusterExtension} for a test class, or by the fault suite's fixture.
 */
public final class BrokerCluster implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(BrokerCluster.class);
    public static final Duration START_TIMEOUT = Duration.ofMinutes(2);

    private final RemoteStores stores;
    private final FaultyHttpProxy s3Proxy;
    private final Path workDir;
    private final Map<String, String> storeSettings = new LinkedHashMap<>();
    private final List<BrokerProcess> brokers = new ArrayList<>();

    private BrokerCluster(RemoteStores stores, FaultyHttpProxy s3Proxy, Path workDir) {
        this.stores = stores;
        this.s3Proxy = s3Proxy;
        this.workDir = workDir;
    }

    /**
     * Starts the servers and {@code brokers} brokers (named {@code <name>-a}, {@code <name>-b}, ...) with
     * {@code overrides} over the cluster's settings: the stores, a 5 s metadata session (a dead broker's topics move
     * within seconds) and no load shedding (the test decides when topics move).
     */
    public static BrokerCluster start(String name, int brokers, Map<String, String> overrides) throws Exception {
        Path workDir = Files.createTempDirectory(name + "-");
        RemoteStores remote = RemoteStores.start(name);
        BrokerCluster cluster = null;
        try {
            FaultyHttpProxy proxy = FaultyHttpProxy.start(remote.s3().endpoint());
            cluster = new BrokerCluster(remote, proxy, workDir);
            Map<String, String> stores = cluster.storeSettings;
            stores.putAll(remote.lakestreamSettings(proxy.endpoint()));
            stores.put("lakestream.writer.flushDelay", "5ms");
            Map<String, String> conf = new LinkedHashMap<>(stores);
            conf.put("metadataStoreUrl", remote.oxiaMetadataStoreUrl());
            conf.put("configurationMetadataStoreUrl", remote.oxiaMetadataStoreUrl());
            conf.put("metadataStoreSessionTimeoutMillis", "5000");
            conf.put("loadBalancerSheddingEnabled", "false");
            conf.putAll(overrides);
            Path confFile = PulsarBrokerExtension.projectDir().resolve("conf/broker-diskless.conf");
            for (int i = 0; i < brokers; i++) {
                BrokerProcess b = BrokerProcess.of(name + "-" + (char) ('a' + i), confFile, workDir, conf);
                cluster.brokers.add(b);
                // One after the other: the first writes the cluster metadata.
                b.start(START_TIMEOUT);
            }
            LOG.info("Broker cluster {} up: {}", name, cluster.brokers);
            return cluster;
        } catch (Exception | Error e) {
            if (cluster != null) {
                cluster.close();
            } else {
                remote.close();
            }
            throw e;
        }
    }

    /** The proxy in front of S3Proxy, where a test injects S3 faults. */
    public FaultyHttpProxy s3Proxy() {
        return s3Proxy;
    }

    public S3ProxyServer s3() {
        return stores.s3();
    }

    public String bucket() {
        return stores.bucket();
    }

    public OxiaServer oxia() {
        return stores.oxia();
    }

    /** Where the brokers keep their data directories and logs; other processes of the test may use it too. */
    public Path workDir() {
        return workDir;
    }

    /**
     * The storage settings every broker got ({@code lakestream.s3.*}, {@code lakestream.oxia.serviceAddress}, the
     * writer's flush delay), for another process that must use the same stores.
     */
    public Map<String, String> storeSettings() {
        return Map.copyOf(storeSettings);
    }

    public List<BrokerProcess> brokers() {
        return brokers;
    }

    /** The broker whose binary-protocol address ends {@code brokerUrl} (a lookup answer). */
    public BrokerProcess broker(String brokerUrl) {
        return brokers.stream()
                .filter(b -> brokerUrl.endsWith(b.brokerAddress()))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("no broker of this cluster at " + brokerUrl));
    }

    /** Starts every broker that is not running (a test killed it, or it stopped itself). */
    public void restartStoppedBrokers() throws Exception {
        for (BrokerProcess b : brokers) {
            if (!b.isAlive()) {
                LOG.info("Restarting {}", b);
                b.start(START_TIMEOUT);
            }
        }
    }

    /** {@code pulsar://} with the binary-protocol address of each of {@code of}. */
    public static String serviceUrl(List<BrokerProcess> of) {
        return "pulsar://" + of.stream().map(BrokerProcess::brokerAddress).collect(Collectors.joining(","));
    }

    /** {@code http://} with the web address of each of {@code of}. */
    public static String webServiceUrl(List<BrokerProcess> of) {
        return "http://" + of.stream().map(BrokerProcess::webAddress).collect(Collectors.joining(","));
    }

    @Override
    public void close() {
        for (BrokerProcess b : brokers) {
            try {
                b.close();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        for (AutoCloseable c : new AutoCloseable[] {s3Proxy, stores}) {
            try {
                if (c != null) {
                    c.close();
                }
            } catch (Exception e) {
                LOG.warn("closing {}", c, e);
            }
        }
    }
}
