package dev.lakestream.tests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.apache.pulsar.client.admin.LongRunningProcessStatus;
import org.apache.pulsar.client.admin.PulsarAdmin;
import org.apache.pulsar.client.admin.PulsarAdminException;
import org.apache.pulsar.client.api.Producer;
import org.apache.pulsar.client.api.PulsarClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The broker's own readers of compacted topics: with system topics and topic-level policies on, topic policies live
 * in the namespace's {@code __change_events} topic, which the broker reads with a {@code readCompacted} reader. The
 * policies keep working when that topic is compacted by Lakestream's service, also after a restart, and a topic-level
 * compaction threshold compacts a topic automatically.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class CompactionWithSystemTopicsTest {

    @RegisterExtension
    static final PulsarBrokerExtension BROKER = CompactionScenarios.configure(PulsarBrokerExtension.embedded())
            .config("systemTopicEnabled", "true")
            .config("topicLevelPoliciesEnabled", "true");

    @Test
    void topicPoliciesAreReadThroughACompactedSystemTopic() throws Exception {
        PulsarAdmin admin = BROKER.admin();
        String topic = "persistent://public/default/policy-compact";
        String changeEvents = "persistent://public/default/__change_events";
        try (PulsarClient client = BROKER.newClient();
                Producer<byte[]> producer =
                        client.newProducer().topic(topic).enableBatching(false).create()) {
            producer.newMessage()
                    .key("k")
                    .value("v0".getBytes(StandardCharsets.UTF_8))
                    .send();
            admin.topicPolicies().setMaxConsumers(topic, 7);
            admin.topicPolicies().setMaxConsumers(topic, 8);
            CompactionScenarios.waitFor(
                    "the topic policy",
                    () -> Integer.valueOf(8).equals(admin.topicPolicies().getMaxConsumers(topic)));

            // Compact the system topic the policies service reads with readCompacted. The broker may be compacting
            // it already (system topics have a compaction threshold of their own): then wait and ask again, so that
            // a run starts after the policies above were written.
            CompactionScenarios.waitFor("a compaction of " + changeEvents + " to start", () -> {
                try {
                    admin.topics().triggerCompaction(changeEvents);
                    return true;
                } catch (PulsarAdminException.ConflictException alreadyRunning) {
                    return false;
                }
            });
            CompactionScenarios.waitFor(
                    "compaction of " + changeEvents,
                    () -> admin.topics().compactionStatus(changeEvents).status
                            != LongRunningProcessStatus.Status.RUNNING);
            LongRunningProcessStatus st = admin.topics().compactionStatus(changeEvents);
            assertThat(st.status).as("%s", st.lastError).isEqualTo(LongRunningProcessStatus.Status.SUCCESS);

            // A topic-level threshold: the broker compacts the topic by itself.
            admin.topicPolicies().setCompactionThreshold(topic, 256L);
            CompactionScenarios.waitFor(
                    "the threshold policy",
                    () -> Long.valueOf(256L).equals(admin.topicPolicies().getCompactionThreshold(topic)));
            for (int i = 0; i < 20; i++) {
                producer.newMessage()
                        .key("k")
                        .value(("v" + i + "-" + "x".repeat(40)).getBytes(StandardCharsets.UTF_8))
                        .send();
            }
            CompactionScenarios.waitFor(
                    "automatic compaction of " + topic,
                    () -> admin.topics().compactionStatus(topic).status == LongRunningProcessStatus.Status.SUCCESS);
        }

        BROKER.restart();

        // After a restart the policies service reads __change_events again: compacted view, then the rest.
        PulsarAdmin after = BROKER.admin();
        CompactionScenarios.waitFor(
                "the topic policies after a restart",
                () -> Integer.valueOf(8).equals(after.topicPolicies().getMaxConsumers(topic))
                        && Long.valueOf(256L).equals(after.topicPolicies().getCompactionThreshold(topic)));
    }
}
