package dev.lakestream.tests.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lakestream.tests.KeyedTraffic;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.pulsar.client.admin.PulsarAdmin;
import org.apache.pulsar.client.admin.PulsarAdminException;
import org.apache.pulsar.client.api.PulsarClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one fault under steady keyed traffic on two fresh topics at once, one with deduplication on and one with it
 * off: warm up, inject, hold the fault, heal, wait for publishing to resume, run on a little, stop sending, wait for
 * every send to be answered and every acknowledged message to be consumed, then read each topic whole and count.
 */
final class FaultScenario {

    private static final Logger LOG = LoggerFactory.getLogger(FaultScenario.class);

    /** Messages a second per topic. */
    static final int RATE = 100;

    static final String DEDUP_NAMESPACE = "public/faults-dedup";
    static final String PLAIN_NAMESPACE = "public/faults-plain";

    /** A step of a fault; may throw. */
    @FunctionalInterface
    interface Step {
        void run() throws Exception;
    }

    /** The counts of one topic; {@link #row()} is what the report shows. */
    /** @param readAfterEnd messages the checking reader got after the broker said there were none left */
    record Outcome(
            FaultReport.Row row, List<Integer> lost, KeyedTraffic traffic, long ackedDuringFault, int readAfterEnd) {}

    private FaultScenario() {}

    /** Creates the two namespaces of the scenarios once per cluster. */
    static void createNamespaces(PulsarAdmin admin) throws PulsarAdminException {
        for (String ns : List.of(DEDUP_NAMESPACE, PLAIN_NAMESPACE)) {
            if (!admin.namespaces().getNamespaces("public").contains(ns)) {
                admin.namespaces().createNamespace(ns);
            }
        }
        admin.namespaces().setDeduplicationStatus(DEDUP_NAMESPACE, true);
        // Everything is kept, so that reading a topic whole afterwards finds every acknowledged message: with
        // Pulsar's default retention (none), ledgers the checking consumer has consumed may be trimmed at the
        // rollover that follows a failed write, and those messages would look lost although they were delivered.
        for (String ns : List.of(DEDUP_NAMESPACE, PLAIN_NAMESPACE)) {
            admin.namespaces().setRetention(ns, new org.apache.pulsar.common.policies.data.RetentionPolicies(-1, -1));
        }
    }

    /** The fault proxy's count of requests it forwarded to S3 while the last fault held (S3 scenarios). */
    static volatile int forwardedDuringFault = -1;

    /** As {@link #run(FaultCluster, PulsarClient, String, String, Step, Duration, Step)} on a test class's fixture. */
    static List<Outcome> run(
            FaultClusterExtension fixture, String scenario, String topicName, Step inject, Duration hold, Step heal)
            throws Exception {
        return run(fixture.cluster(), fixture.client(), scenario, topicName, inject, hold, heal);
    }

    /**
     * Runs {@code inject}, holds the fault for {@code hold}, runs {@code heal}; returns the outcome of the dedup topic
     * first, then the plain one.
     */
    static List<Outcome> run(
            FaultCluster cluster,
            PulsarClient client,
            String scenario,
            String topicName,
            Step inject,
            Duration hold,
            Step heal)
            throws Exception {
        List<KeyedTraffic> traffics = new ArrayList<>();
        forwardedDuringFault = -1;
        try (MemorySampler memory = new MemorySampler(cluster.brokers())) {
            for (String ns : List.of(DEDUP_NAMESPACE, PLAIN_NAMESPACE)) {
                String topic = "persistent://" + ns + "/" + topicName;
                traffics.add(new KeyedTraffic(client, topic, topicName + "-" + ns.substring(ns.indexOf('-') + 1))
                        .start(RATE));
            }
            for (KeyedTraffic t : traffics) {
                await("200 acknowledgements on " + t.topic() + " before the fault")
                        .atMost(Duration.ofMinutes(1))
                        .ignoreExceptionsInstanceOf(Exception.class)
                        .until(() -> t.ackedCount() >= 200);
            }
            LOG.info("[{}] injecting the fault", scenario);
            long faultStart = System.nanoTime();
            inject.run();
            long injected = System.nanoTime();
            Thread.sleep(hold.toMillis());
            heal.run();
            long healed = System.nanoTime();
            LOG.info("[{}] fault over after {} s", scenario, hold.toSeconds());
            long[] ackedDuringFault = new long[traffics.size()];
            for (int i = 0; i < traffics.size(); i++) {
                // Messages sent once the fault was in place and acknowledged before it ended. (Counting by the
                // time of the ack instead also counted messages stored before the fault whose ack came late on
                // a loaded machine.)
                KeyedTraffic t = traffics.get(i);
                ackedDuringFault[i] = t.storedInWindow(injected, healed);
            }
            for (KeyedTraffic t : traffics) {
                await("publishing to resume on " + t.topic())
                        .atMost(Duration.ofSeconds(90))
                        .ignoreExceptionsInstanceOf(Exception.class)
                        .until(() -> t.firstAckAtOrAfter(healed) > 0);
            }
            Thread.sleep(3000);
            for (KeyedTraffic t : traffics) {
                t.stopSending();
            }
            for (KeyedTraffic t : traffics) {
                if (!t.awaitSettled(90)) {
                    LOG.warn(
                            "[{}] {} did not settle: {} unanswered, not received {}",
                            scenario,
                            t.topic(),
                            t.unanswered(),
                            head(t.notReceived()));
                }
            }
            memory.close();
            List<Outcome> out = new ArrayList<>();
            for (int i = 0; i < traffics.size(); i++) {
                KeyedTraffic t = traffics.get(i);
                KeyedTraffic.Stored stored = KeyedTraffic.stored(client, t.topic());
                List<Integer> lost = t.acked().stream()
                        .filter(n -> !stored.counts().containsKey(n) || !t.wasReceived(n))
                        .sorted()
                        .toList();
                long ackAfter = t.firstAckAtOrAfter(healed);
                double recover = ackAfter > 0 ? (ackAfter - healed) / 1e9 : Double.NaN;
                boolean dedup = i == 0;
                List<Integer> notStored = lost.stream()
                        .filter(n -> !stored.counts().containsKey(n))
                        .toList();
                List<Integer> notReceived =
                        lost.stream().filter(n -> !t.wasReceived(n)).toList();
                Set<Integer> dupAcks = t.ackedAsDuplicate();
                String note = "stored and acked while faulty: " + ackedDuringFault[i] + "; acked as duplicates: "
                        + dupAcks.size();
                if (forwardedDuringFault >= 0) {
                    note += "; requests that reached S3 during the fault: " + forwardedDuringFault;
                }
                if (!lost.isEmpty()) {
                    note += "; lost: " + notStored.size() + " not stored, " + notReceived.size() + " not delivered, "
                            + lost.stream().filter(dupAcks::contains).count() + " of them acked as duplicates";
                    LOG.warn(
                            "[{}] {} lost {}: first {}, not stored {}, not received {}",
                            scenario,
                            t.topic(),
                            lost.size(),
                            head(lost),
                            head(notStored),
                            head(notReceived));
                    try (PulsarAdmin admin = cluster.admin()) {
                        LOG.warn(
                                "[{}] {} internal stats: {}",
                                scenario,
                                t.topic(),
                                new com.fasterxml.jackson.databind.ObjectMapper()
                                        .writeValueAsString(admin.topics().getInternalStats(t.topic())));
                    } catch (Exception e) {
                        LOG.warn("[{}] no internal stats of {}", scenario, t.topic(), e);
                    }
                }
                FaultReport.Row row = new FaultReport.Row(
                        scenario,
                        dedup,
                        t.ackedCount(),
                        t.failed().size(),
                        lost.size(),
                        stored.storedTwice(),
                        t.redelivered(),
                        t.orderViolations(),
                        stored.idsNotRising(),
                        recover,
                        t.latencyMs(0.99, faultStart, healed),
                        memory.maxHeapBytes(),
                        memory.maxDirectBytes(),
                        note);
                LOG.info(
                        "[{}] {}: {}; send errors {}",
                        scenario,
                        t.topic(),
                        row,
                        head(t.failed().values()));
                out.add(new Outcome(row, lost, t, ackedDuringFault[i], stored.afterEnd()));
            }
            return out;
        } finally {
            for (KeyedTraffic t : traffics) {
                t.close();
            }
        }
    }

    static <T> List<T> head(java.util.Collection<T> c) {
        return c.stream().limit(10).toList();
    }

    /** What every scenario must show: nothing acknowledged lost, no reordering, no duplicates with dedup on. */
    static void assertSafe(FaultReport report, List<Outcome> outcomes) {
        for (Outcome o : outcomes) {
            report.add(o.row());
        }
        for (Outcome o : outcomes) {
            FaultReport.Row r = o.row();
            assertThat(o.lost())
                    .as("%s, dedup %s: acknowledged but not stored or never delivered", r.scenario(), r.dedup())
                    .isEmpty();
            assertThat(r.idsNotRising())
                    .as("%s: stored message ids that do not rise", r.scenario())
                    .isZero();
            assertThat(o.readAfterEnd())
                    .as("%s: messages a reader got after hasMessageAvailable() said none were left", r.scenario())
                    .isZero();
            assertThat(o.traffic().consumerError()).as("consumer error").isNull();
            assertThat(o.traffic().unanswered())
                    .as("%s: sends never answered", r.scenario())
                    .isZero();
            if (!r.dedup()) {
                // Without deduplication a send whose answer was lost (the broker closed the connection) and that was
                // stored all the same is stored again when resent, and can put a key's messages out of order
                // (Pulsar's at-least-once): the table reports both.
                continue;
            }
            assertThat(r.orderViolations())
                    .as("%s: per-key order violations", r.scenario())
                    .isZero();
            assertThat(r.storedTwice())
                    .as("%s: messages stored twice with deduplication on", r.scenario())
                    .isZero();
        }
    }
}
