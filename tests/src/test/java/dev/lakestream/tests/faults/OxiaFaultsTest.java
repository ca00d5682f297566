package dev.lakestream.tests.faults;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Oxia (Pulsar's metadata and Lakestream's index) going away under a running broker with keyed traffic: restarted,
 * and down for 20 s, longer than the broker's metadata session. Appends must wait or fail, never be acknowledged
 * without their index commit, and the topics must come back without an operator.
 */
@Timeout(value = 6, unit = TimeUnit.MINUTES)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class OxiaFaultsTest {

    static final FaultReport REPORT = new FaultReport(
            "## Measured: Oxia faults",
            "One broker process, S3Proxy, Oxia (Pulsar's metadata store and Lakestream's index), "
                    + "`metadataStoreSessionTimeoutMillis=5000`; " + FaultScenario.RATE
                    + " keyed messages/s per topic.");

    @RegisterExtension
    static final FaultClusterExtension CLUSTER = new FaultClusterExtension("oxia", 1, REPORT);

    private static FaultCluster cluster() {
        return CLUSTER.cluster();
    }

    @Test
    @Order(1)
    void oxiaRestartedLosesNothingAndTopicsComeBack() throws Exception {
        List<FaultScenario.Outcome> o = FaultScenario.run(
                CLUSTER,
                "Oxia restarted",
                "oxia-restart",
                () -> cluster().oxia().stop(),
                Duration.ZERO,
                () -> cluster().oxia().restart());
        assertSafe(o);
    }

    @Test
    @Order(2)
    void oxiaDownFor20sAcknowledgesNothingWithoutItsIndexCommitAndRecoversAlone() throws Exception {
        List<FaultScenario.Outcome> o = FaultScenario.run(
                CLUSTER,
                "Oxia down 20 s",
                "oxia-down",
                () -> cluster().oxia().stop(),
                Duration.ofSeconds(20),
                () -> cluster().oxia().restart());
        assertSafe(o);
        // Without Oxia no index record can be committed, so no append may be acknowledged.
        assertThat(o)
                .allSatisfy(x -> assertThat(x.ackedDuringFault())
                        .as("acknowledged while Oxia was down")
                        .isZero());
    }

    /** Nothing acknowledged lost, nothing stored twice with deduplication on, no reordering there. */
    private static void assertSafe(List<FaultScenario.Outcome> outcomes) {
        FaultScenario.assertSafe(REPORT, outcomes);
        assertThat(cluster().brokers())
                .as("brokers still running")
                .allSatisfy(b -> assertThat(b.isAlive()).isTrue());
    }
}
