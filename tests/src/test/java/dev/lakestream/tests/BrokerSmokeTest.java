package dev.lakestream.tests;

import static dev.lakestream.tests.RoundTrips.expected;
import static dev.lakestream.tests.RoundTrips.produce;
import static dev.lakestream.tests.RoundTrips.receive;
import static dev.lakestream.tests.RoundTrips.subscribe;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.pulsar.broker.storage.ManagedLedgerStorage;
import org.apache.pulsar.client.admin.LongRunningProcessStatus;
import org.apache.pulsar.client.admin.PulsarAdmin;
import org.apache.pulsar.client.admin.PulsarAdminException;
import org.apache.pulsar.client.api.Consumer;
import org.apache.pulsar.client.api.MessageId;
import org.apache.pulsar.client.api.Producer;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.Reader;
import org.apache.pulsar.common.policies.data.PersistencePolicies;
import org.apache.pulsar.common.policies.data.TenantInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The broker a user runs ({@code bin/run-broker}: {@code conf/broker-diskless-embedded.conf}), in-process on a
 * temporary data directory: it starts on Lakestream in diskless mode, serves the admin API, carries non-persistent
 * and persistent topics with the real client, and keeps messages across a restart.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class BrokerSmokeTest {

    @RegisterExtension
    static final PulsarBrokerExtension BROKER = PulsarBrokerExtension.embedded();

    /** Topic properties through the admin API (the Iceberg materializer's per-topic switch is one). */
    @Test
    void updatingTheTopicPropertiesOfALoadedTopicAnswers() throws Exception {
        String topic = "persistent://public/default/props";
        PulsarClient client = BROKER.newClient();
        try (Producer<String> p = client.newProducer(org.apache.pulsar.client.api.Schema.STRING)
                .topic(topic)
                .create()) {
            p.send("x");
            // The broker's callback copies the properties into the ledger's config map; it used to throw there
            // (an immutable map) and the request never answered.
            BROKER.admin()
                    .topics()
                    .updatePropertiesAsync(topic, java.util.Map.of("lakestream.iceberg", "disabled"))
                    .get(20, TimeUnit.SECONDS);
            assertThat(BROKER.admin().topics().getProperties(topic)).containsEntry("lakestream.iceberg", "disabled");
        }
    }

    @Test
    void startsOnLakestreamInDisklessMode() throws Exception {
        ManagedLedgerStorage storage = BROKER.pulsar().getManagedLedgerStorage();
        assertThat(storage.getClass().getName()).isEqualTo(PulsarBrokerExtension.STORAGE_CLASS);
        assertThat(storage.getDefaultStorageClass().getName()).isEqualTo("lakestream");
        assertThat(BROKER.configuration().getProperties().getProperty("lakestreamStorageMode"))
                .isEqualTo("diskless");
        // The cluster metadata bin/run-broker writes on first start.
        PulsarAdmin admin = BROKER.admin();
        assertThat(admin.clusters().getClusters()).containsExactly("lakestream");
        assertThat(admin.tenants().getTenants()).contains("public", "pulsar");
        assertThat(admin.namespaces().getNamespaces("public")).contains("public/default");
    }

    @Test
    void adminCreatesTenantAndNamespace() throws Exception {
        PulsarAdmin admin = BROKER.admin();
        admin.tenants()
                .createTenant(
                        "smoke",
                        TenantInfo.builder()
                                .allowedClusters(Set.of("lakestream"))
                                .build());
        admin.namespaces().createNamespace("smoke/ns1");
        admin.namespaces().setPersistence("smoke/ns1", new PersistencePolicies(1, 1, 1, 0, "lakestream"));

        assertThat(admin.tenants().getTenants()).contains("smoke");
        assertThat(admin.namespaces().getNamespaces("smoke")).containsExactly("smoke/ns1");
        assertThat(admin.namespaces().getPersistence("smoke/ns1").getManagedLedgerStorageClassName())
                .isEqualTo("lakestream");
    }

    @Test
    void anUnknownStorageClassIsRefusedWhenSet() throws Exception {
        // The broker plugin the diskless configuration loads: in diskless mode "lakestream" is the only class.
        PulsarAdmin admin = BROKER.admin();
        admin.tenants()
                .createTenant(
                        "typo",
                        TenantInfo.builder()
                                .allowedClusters(Set.of("lakestream"))
                                .build());
        admin.namespaces().createNamespace("typo/ns");
        for (String wrong : new String[] {"lakestraem", "bookkeeper"}) {
            assertThatThrownBy(() ->
                            admin.namespaces().setPersistence("typo/ns", new PersistencePolicies(1, 1, 1, 0, wrong)))
                    .isInstanceOf(PulsarAdminException.PreconditionFailedException.class)
                    .hasMessageContaining("'" + wrong + "'")
                    .hasMessageContaining("[lakestream]");
        }
        assertThat(admin.namespaces().getPersistence("typo/ns"))
                .as("nothing stored")
                .isNull();
    }

    @Test
    void nonPersistentTopicRoundTrip() throws Exception {
        String topic = "non-persistent://public/default/smoke-np";
        try (PulsarClient client = BROKER.newClient();
                Consumer<byte[]> consumer =
                        client.newConsumer().topic(topic).subscriptionName("s").subscribe();
                Producer<byte[]> producer =
                        client.newProducer().topic(topic).enableBatching(false).create()) {
            for (int i = 0; i < 10; i++) {
                producer.send(("np-" + i).getBytes(StandardCharsets.UTF_8));
            }
            assertThat(receive(consumer, 10)).isEqualTo(expected("np", 0, 10));
        }
    }

    @Test
    void persistentTopicRoundTrip() throws Exception {
        String topic = "persistent://public/default/smoke-p";
        try (PulsarClient client = BROKER.newClient()) {
            produce(client, topic, "p", 20);
            try (Consumer<byte[]> consumer = subscribe(client, topic, "sub")) {
                assertThat(receive(consumer, 20)).isEqualTo(expected("p", 0, 20));
                RoundTrips.assertNothingMore(consumer, 300);
            }
        }
        // The entries went to the local object store, under the data directory.
        assertThat(RoundTrips.filesUnder(BROKER.objectsDir())).isNotEmpty();
        assertThat(BROKER.admin().topics().getStats(topic).getMsgInCounter()).isEqualTo(20);
    }

    @Test
    void persistentTopicInANamespaceSetToLakestream() throws Exception {
        PulsarAdmin admin = BROKER.admin();
        admin.tenants()
                .createTenant(
                        "policy",
                        TenantInfo.builder()
                                .allowedClusters(Set.of("lakestream"))
                                .build());
        admin.namespaces().createNamespace("policy/ns");
        // What the README tells a user to type (pulsar-admin namespaces set-persistence ... --ml-storage-class).
        admin.namespaces().setPersistence("policy/ns", new PersistencePolicies(1, 1, 1, 0, "lakestream"));

        String topic = "persistent://policy/ns/t";
        try (PulsarClient client = BROKER.newClient()) {
            produce(client, topic, "m", 5);
            try (Consumer<byte[]> consumer = subscribe(client, topic, "sub")) {
                assertThat(receive(consumer, 5)).isEqualTo(expected("m", 0, 5));
            }
        }
    }

    @Test
    void readersAndLastMessageIdWorkWithNothingCompacted() throws Exception {
        String topic = "persistent://public/default/smoke-reader";
        try (PulsarClient client = BROKER.newClient()) {
            produce(client, topic, "x", 5);
            // Both read the topic itself: nothing is compacted yet.
            for (boolean compacted : new boolean[] {false, true}) {
                try (Reader<byte[]> reader = client.newReader()
                        .topic(topic)
                        .startMessageId(MessageId.earliest)
                        .readCompacted(compacted)
                        .create()) {
                    List<String> got = new ArrayList<>();
                    while (reader.hasMessageAvailable()) {
                        got.add(new String(reader.readNext(20, TimeUnit.SECONDS).getValue(), StandardCharsets.UTF_8));
                    }
                    assertThat(got).as("readCompacted=%s", compacted).isEqualTo(expected("x", 0, 5));
                }
            }
            try (Consumer<byte[]> consumer = subscribe(client, topic, "last")) {
                MessageId last = consumer.getLastMessageIds().get(0);
                assertThat(last).isNotEqualTo(MessageId.earliest);
                assertThat(receive(consumer, 5).get(4)).isEqualTo("x-4");
            }
        }
    }

    @Test
    void compactionKeepsTheLatestValuePerKey() throws Exception {
        String topic = "persistent://public/default/smoke-compact";
        try (PulsarClient client = BROKER.newClient();
                Producer<byte[]> producer =
                        client.newProducer().topic(topic).enableBatching(false).create()) {
            for (String kv : new String[] {"a=1", "b=1", "a=2"}) {
                producer.newMessage()
                        .key(kv.substring(0, 1))
                        .value(kv.getBytes(StandardCharsets.UTF_8))
                        .send();
            }
            BROKER.admin().topics().triggerCompaction(topic);
            await("compaction of " + topic + " to finish")
                    .atMost(Duration.ofMinutes(1))
                    .ignoreExceptionsInstanceOf(Exception.class)
                    .until(() -> BROKER.admin().topics().compactionStatus(topic).status
                            != LongRunningProcessStatus.Status.RUNNING);
            LongRunningProcessStatus status = BROKER.admin().topics().compactionStatus(topic);
            assertThat(status.status)
                    .as("compaction status (%s)", status.lastError)
                    .isEqualTo(LongRunningProcessStatus.Status.SUCCESS);
            try (Reader<byte[]> reader = client.newReader()
                    .topic(topic)
                    .startMessageId(MessageId.earliest)
                    .readCompacted(true)
                    .create()) {
                List<String> got = new ArrayList<>();
                while (reader.hasMessageAvailable()) {
                    got.add(new String(reader.readNext(20, TimeUnit.SECONDS).getValue(), StandardCharsets.UTF_8));
                }
                assertThat(got).containsExactly("b=1", "a=2");
            }
        }
    }

    @Test
    void restartKeepsMessagesAndSubscriptions() throws Exception {
        String topic = "persistent://public/default/smoke-restart";
        PulsarClient client = BROKER.newClient();
        produce(client, topic, "r", 10);
        try (Consumer<byte[]> consumer = subscribe(client, topic, "half")) {
            assertThat(receive(consumer, 4)).isEqualTo(expected("r", 0, 4));
        }
        client.close();

        BROKER.restart();

        try (PulsarClient after = BROKER.newClient()) {
            // The durable subscription goes on after its last acknowledgement...
            try (Consumer<byte[]> consumer = subscribe(after, topic, "half")) {
                assertThat(receive(consumer, 6)).isEqualTo(expected("r", 4, 10));
            }
            // ...a new one reads everything, and the topic takes more messages.
            produce(after, topic, "r2", 2);
            try (Consumer<byte[]> consumer = subscribe(after, topic, "all")) {
                assertThat(receive(consumer, 12))
                        .containsExactlyElementsOf(concat(expected("r", 0, 10), expected("r2", 0, 2)));
            }
        }
        assertThat(BROKER.admin().tenants().getTenants()).contains("public");
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> l = new ArrayList<>(a);
        l.addAll(b);
        return l;
    }
}
