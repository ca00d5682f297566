package dev.lakestream.tests.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lakestream.tests.BrokerMetrics;
import dev.lakestream.tests.BrokerProcess;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.pulsar.client.admin.PulsarAdmin;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Faults while the brokers compact their topics' streams into segments all the time (delay 1 s, a pass a second,
 * 64 KiB segments, GC every 5 s with 10 s margins): the owner killed, and an S3 503 storm, under keyed traffic on a
 * deduplicated and a plain topic. Everything acknowledged is read back once and in order, across the segments, the
 * WAL and the takeover. (A compactor paused past a takeover, killed between its steps, S3 refusing its PUTs and Oxia
 * restarted under it are rows of {@code CompactionFaultsTest} in lakestream-segments, each at the switch itself.)
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class CompactionUnderFaultsTest {

    static final FaultReport REPORT = new FaultReport(
            "## Measured: faults while compacting",
            "Two broker processes, S3Proxy behind the fault proxy, Oxia; " + FaultScenario.RATE
                    + " keyed messages/s per topic; compaction into segments as fast as it goes "
                    + "(`lakestream.compaction.delay=1s`, `interval=1s`, `segmentSize=64KiB`) and GC every 5 s "
                    + "(margins 10 s), so the readers at the end read segments, merged segments and the WAL.");

    @RegisterExtension
    static final FaultClusterExtension CLUSTER = new FaultClusterExtension("compacting", 2, REPORT)
            .config("lakestream.compaction.delay", "1s")
            .config("lakestream.compaction.interval", "1s")
            .config("lakestream.compaction.segmentSize", "64KiB")
            .config("lakestream.gc.interval", "5s")
            .config("lakestream.gc.safetyMargin", "10s")
            .config("lakestream.gc.orphanDelay", "10s")
            .config("lakestream.gc.commitWindow", "10s");

    private static FaultCluster cluster() {
        return CLUSTER.cluster();
    }

    @Test
    @Order(1)
    void theOwnerKilledWhileItCompactsLosesNothing() throws Exception {
        double before = segmentsWritten();
        BrokerProcess[] killed = new BrokerProcess[1];
        List<FaultScenario.Outcome> o = FaultScenario.run(
                CLUSTER,
                "Owner killed (SIGKILL) while compacting",
                "compacting-killed",
                () -> {
                    killed[0] = ownerOf("persistent://" + FaultScenario.DEDUP_NAMESPACE + "/compacting-killed");
                    killed[0].kill();
                },
                Duration.ofSeconds(5),
                () -> cluster().restartStoppedBrokers());
        FaultScenario.assertSafe(REPORT, o);
        assertThat(segmentsWritten()).as("segments written by the brokers").isGreaterThan(before);
    }

    @Test
    @Order(2)
    void anS3StormWhileCompactingLosesNothing() throws Exception {
        cluster().restartStoppedBrokers();
        double before = segmentsWritten();
        List<FaultScenario.Outcome> o = FaultScenario.run(
                CLUSTER,
                "S3 503 storm 10 s while compacting",
                "compacting-storm",
                () -> cluster().s3Proxy().failAllRequests(),
                Duration.ofSeconds(10),
                () -> cluster().s3Proxy().heal());
        FaultScenario.assertSafe(REPORT, o);
        assertThat(segmentsWritten()).as("segments written by the brokers").isGreaterThan(before);
    }

    private static BrokerProcess ownerOf(String topic) throws Exception {
        try (PulsarAdmin admin = cluster().admin()) {
            return cluster().broker(admin.lookups().lookupTopic(topic));
        }
    }

    /** Segments written so far by the running brokers, from their {@code /metrics}. */
    private static double segmentsWritten() throws Exception {
        return BrokerMetrics.sumOverRunning(cluster().brokers(), "lakestream_compaction_segments_written_total");
    }
}
