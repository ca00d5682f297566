package dev.lakestream.tests.faults;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.pulsar.client.admin.PulsarAdmin;
import org.apache.pulsar.client.api.PulsarClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

/**
 * Oxia (Pulsar's metadata and Lakestream's index) going away under a running broker with keyed traffic: restarted,
 * and down for 20 s, longer than the broker's metadata session. Appends must wait or fail, never be acknowledged
 * without their index commit, and the topics must come back without an operator.
 */
@Timeout(value = 6, unit = TimeUnit.MINUTES)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class OxiaFaultsTest {

    static final FaultReport REPORT = new FaultReport("## Measured: Oxia faults",
            "One broker process, S3Proxy, Oxia (Pulsar's metadata store and Lakestream's index), "
                    + "`metadataStoreSessionTimeoutMillis=5000`; " + FaultScenario.RATE + " keyed messages/s per topic.");

    private static FaultCluster cluster;
    private static PulsarClient client;

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = FaultCluster.start("oxia", 1, Map.of());
        client = cluster.client();
        try (PulsarAdmin admin = cluster.admin()) {
            FaultScenario.createNamespaces(admin);
        }
    }

    @AfterAll
    static void stopCluster() throws Exception {
        try {
            REPORT.write();
        } finally {
            if (client != null) {
                client.close();
            }
            if (cluster != null) {
                cluster.close();
            }
        }
    }

    @Test
    @Order(1)
    void oxiaRestartedLosesNothingAndTopicsComeBack() throws Exception {
        List<FaultScenario.Outcome> o = FaultScenario.run(cluster, client, "Oxia restarted", "oxia-restart",
                () -> cluster.oxia().stop(), Duration.ZERO, () -> cluster.oxia().restart());
        assertSafe(o);
    }

    @Test
    @Order(2)
    void oxiaDownFor20sAcknowledgesNothingWithoutItsIndexCommitAndRecoversAlone() throws Exception {
        List<FaultScenario.Outcome> o = FaultScenario.run(cluster, client, "Oxia down 20 s", "oxia-down",
                () -> cluster.oxia().stop(), Duration.ofSeconds(20), () -> cluster.oxia().restart());
        assertSafe(o);
        // Without Oxia no index record can be committed, so no append may be acknowledged.
        assertThat(o).allSatisfy(x -> assertThat(x.ackedDuringFault()).as("acknowledged while Oxia was down")
                .isZero());
    }

    /** Nothing acknowledged lost, nothing stored twice with deduplication on, no reordering there. */
    private static void assertSafe(List<FaultScenario.Outcome> outcomes) {
        FaultScenario.assertSafe(REPORT, outcomes);
        assertThat(cluster.brokers()).as("brokers still running").allSatisfy(b -> assertThat(b.isAlive()).isTrue());
    }
}
