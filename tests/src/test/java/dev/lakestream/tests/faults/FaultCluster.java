package dev.lakestream.tests.faults;

import dev.lakestream.testkit.FaultyHttpProxy;
import dev.lakestream.testkit.OxiaServer;
import dev.lakestream.testkit.S3ProxyServer;
import dev.lakestream.tests.BrokerCluster;
import dev.lakestream.tests.BrokerProcess;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.pulsar.client.admin.PulsarAdmin;
import org.apache.pulsar.client.api.PulsarClient;

/**
 * What a fault scenario runs against, shared by the scenarios of one test class: a {@link BrokerCluster} (S3Proxy
 * behind a {@link FaultyHttpProxy} a test can refuse, black-hole, slow down or fail requests through, a real Oxia
 * server, broker processes a test can pause or kill) with the fault suite's settings and client timeouts.
 */
final class FaultCluster implements AutoCloseable {

    private final BrokerCluster cluster;

    private FaultCluster(BrokerCluster cluster) {
        this.cluster = cluster;
    }

    /** Starts the servers and {@code brokers} brokers with {@code overrides} over the fault suite's settings. */
    static FaultCluster start(String name, int brokers, Map<String, String> overrides) throws Exception {
        Map<String, String> conf = new LinkedHashMap<>();
        // A black-holed request gives up after this long, and the writer retries: faults show within seconds.
        conf.put("lakestream.s3.requestTimeout", "3s");
        conf.put("brokerShutdownTimeoutMs", "0");
        conf.putAll(overrides);
        return new FaultCluster(BrokerCluster.start(name, brokers, conf));
    }

    FaultyHttpProxy s3Proxy() {
        return cluster.s3Proxy();
    }

    S3ProxyServer s3() {
        return cluster.s3();
    }

    String bucket() {
        return cluster.bucket();
    }

    OxiaServer oxia() {
        return cluster.oxia();
    }

    List<BrokerProcess> brokers() {
        return cluster.brokers();
    }

    /** The broker whose binary-protocol address ends {@code brokerUrl} (a lookup answer). */
    BrokerProcess broker(String brokerUrl) {
        return cluster.broker(brokerUrl);
    }

    /** Starts every broker that is not running (a scenario killed it, or it stopped itself). */
    void restartStoppedBrokers() throws Exception {
        cluster.restartStoppedBrokers();
    }

    PulsarAdmin admin() throws Exception {
        return PulsarAdmin.builder()
                .serviceHttpUrl(BrokerCluster.webServiceUrl(brokers()))
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
        return client(brokers());
    }

    static PulsarClient client(List<BrokerProcess> of) throws Exception {
        return PulsarClient.builder()
                .serviceUrl(BrokerCluster.serviceUrl(of))
                .operationTimeout(10, TimeUnit.SECONDS)
                .keepAliveInterval(5, TimeUnit.SECONDS)
                .build();
    }

    @Override
    public void close() {
        cluster.close();
    }
}
