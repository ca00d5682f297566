package dev.lakestream.tests.faults;

import dev.lakestream.testkit.FaultyHttpProxy;
import dev.lakestream.testkit.OxiaServer;
import dev.lakestream.testkit.S3ProxyServer;
import dev.lakestream.tests.BrokerProcess;
import dev.lakestream.tests.PulsarBrokerExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.pulsar.client.admin.PulsarAdmin;
import org.apache.pulsar.client.api.PulsarClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a fault scenario runs against, shared by the scenarios of one test class: a real S3Proxy reached through a
 * {@link FaultyHttpProxy} (so a test can refuse, black-hole, slow down or fail S3 requests), a real Oxia server, and
 * brokers in their own JVMs on {@code conf/broker-diskless.conf} (so a test can pause or kill them).
 */
final class FaultCluster implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(FaultCluster.class);
    static final Duration START_TIMEOUT = Duration.ofMinutes(2);

    private final S3ProxyServer s3;
    private final FaultyHttpProxy s3Proxy;
    private final OxiaServer oxia;
    private final String bucket;
    private final List<BrokerProcess> brokers = new ArrayList<>();

    private FaultCluster(S3ProxyServer s3, FaultyHttpProxy s3Proxy, OxiaServer oxia, String bucket) {
        this.s3 = s3;
        this.s3Proxy = s3Proxy;
        this.oxia = oxia;
        this.bucket = bucket;
    }

    /** Starts the servers and {@code brokers} brokers with {@code overrides} over the fault suite's settings. */
    static FaultCluster start(String name, int brokers, Map<String, String> overrides) throws Exception {
        Path workDir = Files.createTempDirectory("faults-" + name + "-");
        S3ProxyServer s3 = S3ProxyServer.start();
        FaultCluster cluster = null;
        try {
            String bucket = s3.createBucket();
            FaultyHttpProxy proxy = FaultyHttpProxy.start(s3.endpoint());
            OxiaServer oxia = OxiaServer.create("faults-" + name).start();
            cluster = new FaultCluster(s3, proxy, oxia, bucket);
            Map<String, String> conf = new LinkedHashMap<>();
            String oxiaUrl = "oxia://" + oxia.serviceAddress() + "/default";
            conf.put("metadataStoreUrl", oxiaUrl);
            conf.put("configurationMetadataStoreUrl", oxiaUrl);
            conf.put("metadataStoreSessionTimeoutMillis", "5000");
            conf.put("lakestream.s3.bucket", bucket);
            conf.put("lakestream.s3.endpoint", proxy.endpoint().toString());
            conf.put("lakestream.s3.region", s3.region());
            conf.put("lakestream.s3.pathStyleAccess", "true");
            conf.put("lakestream.s3.accessKeyId", s3.accessKey());
            conf.put("lakestream.s3.secretAccessKey", s3.secretKey());
            // A black-holed request gives up after this long, and the writer retries: faults show within seconds.
            conf.put("lakestream.s3.requestTimeout", "3s");
            conf.put("lakestream.oxia.serviceAddress", oxia.serviceAddress());
            conf.put("lakestream.writer.flushDelay", "5ms");
            conf.put("loadBalancerSheddingEnabled", "false");
            conf.put("brokerShutdownTimeoutMs", "0");
            conf.putAll(overrides);
            Path confFile = PulsarBrokerExtension.projectDir().resolve("conf/broker-diskless.conf");
            for (int i = 0; i < brokers; i++) {
                BrokerProcess b = BrokerProcess.of(name + "-" + (char) ('a' + i), confFile, workDir, conf);
                cluster.brokers.add(b);
                // One after the other: the first writes the cluster metadata.
                b.start(START_TIMEOUT);
            }
            LOG.info("Fault cluster {} up: {}", name, cluster.brokers);
            return cluster;
        } catch (Exception | Error e) {
            if (cluster != null) {
                cluster.close();
            } else {
                s3.close();
            }
            throw e;
        }
    }

    FaultyHttpProxy s3Proxy() {
        return s3Proxy;
    }

    S3ProxyServer s3() {
        return s3;
    }

    String bucket() {
        return bucket;
    }

    OxiaServer oxia() {
        return oxia;
    }

    List<BrokerProcess> brokers() {
        return brokers;
    }

    /** The broker whose binary-protocol address ends {@code brokerUrl} (a lookup answer). */
    BrokerProcess broker(String brokerUrl) {
        return brokers.stream()
                .filter(b -> brokerUrl.endsWith(b.brokerAddress()))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("no broker of this cluster at " + brokerUrl));
    }

    /** Starts every broker that is not running (a scenario killed it, or it stopped itself). */
    void restartStoppedBrokers() throws Exception {
        for (BrokerProcess b : brokers) {
            if (!b.isAlive()) {
                LOG.info("Restarting {}", b);
                b.start(START_TIMEOUT);
            }
        }
    }

    PulsarAdmin admin() throws Exception {
        return PulsarAdmin.builder()
                .serviceHttpUrl("http://"
                        + brokers.stream().map(BrokerProcess::webAddress).collect(Collectors.joining(",")))
                .connectionTimeout(5, TimeUnit.SECONDS)
                .readTimeout(30, TimeUnit.SECONDS)
                .requestTimeout(60, TimeUnit.SECONDS)
                .build();
    }

    /**
     * A client of every broker. Keep-alive 5 s: a paused broker's connections are given up within ~10 s, as a
     * production client with a tighter keep-alive would.
     */
    PulsarClient client() throws Exception {
        return client(brokers);
    }

    static PulsarClient client(List<BrokerProcess> of) throws Exception {
        return PulsarClient.builder()
                .serviceUrl("pulsar://"
                        + of.stream().map(BrokerProcess::brokerAddress).collect(Collectors.joining(",")))
                .operationTimeout(10, TimeUnit.SECONDS)
                .keepAliveInterval(5, TimeUnit.SECONDS)
                .build();
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
        for (AutoCloseable c : new AutoCloseable[] {s3Proxy, oxia, s3}) {
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
