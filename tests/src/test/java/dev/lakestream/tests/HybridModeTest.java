package dev.lakestream.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.bookkeeper.mledger.ManagedLedgerException;
import org.apache.bookkeeper.mledger.ManagedLedgerFactory;
import org.apache.pulsar.broker.service.persistent.PersistentTopic;
import org.apache.pulsar.client.admin.PulsarAdmin;
import org.apache.pulsar.client.admin.PulsarAdminException;
import org.apache.pulsar.client.api.Consumer;
import org.apache.pulsar.client.api.Message;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.SubscriptionType;
import org.apache.pulsar.common.naming.TopicName;
import org.apache.pulsar.common.policies.data.ManagedLedgerInternalStats.LedgerInfo;
import org.apache.pulsar.common.policies.data.PersistencePolicies;
import org.apache.pulsar.common.policies.data.TenantInfo;
import org.apache.pulsar.metadata.api.GetResult;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Hybrid mode end to end ({@code conf/broker-hybrid.conf}): one broker with BookKeeper as the default storage (an
 * in-process ZooKeeper + bookie) and Lakestream (S3Proxy + Oxia) for namespaces that choose it, with the Lakestream
 * broker plugin (NAR) loaded ({@link PulsarBrokerExtension#hybrid}). Each test uses its own namespaces.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class HybridModeTest {

    @RegisterExtension
    static final PulsarBrokerExtension BROKER = PulsarBrokerExtension.hybrid(new BookKeeperEnsembleExtension(1));

    static final String TENANT = "hy";

    @BeforeAll
    static void tenant() throws Exception {
        PulsarAdmin admin = BROKER.admin();
        admin.tenants()
                .createTenant(
                        TENANT,
                        TenantInfo.builder()
                                .allowedClusters(Set.of(
                                        BROKER.pulsar().getConfiguration().getClusterName()))
                                .build());
    }

    // --------------------------------------------------------------------------------------- placement and basics

    @Test
    void theLauncherWroteTheClusterMetadataOnZooKeeper() throws Exception {
        // Written by LakestreamBroker.setupClusterIfAbsent before the first start (as bin/run-broker does), not
        // through the admin API: Pulsar's PulsarClusterMetadataSetup cannot run on ZooKeeper without DistributedLog.
        PulsarAdmin admin = BROKER.admin();
        String cluster = BROKER.pulsar().getConfiguration().getClusterName();
        assertThat(admin.clusters().getCluster(cluster).getBrokerServiceUrl()).isEqualTo(BROKER.brokerServiceUrl());
        assertThat(admin.tenants().getTenants()).contains("public", "pulsar");
        assertThat(admin.namespaces().getNamespaces("public")).contains("public/default");
        assertThat(admin.namespaces().getNamespaces("pulsar")).contains("pulsar/system");
        assertThat(admin.namespaces().getBundles("public/default").getNumBundles())
                .isEqualTo(32);
        assertThat(admin.topics()
                        .getPartitionedTopicMetadata("persistent://pulsar/system/transaction_coordinator_assign")
                        .partitions)
                .isEqualTo(16);
        assertThat(BROKER.pulsar().getLocalMetadataStore().exists("/bookies").get())
                .isTrue();
    }

    @Test
    void theBrokerRunsTheHybridStorageAndLoadsThePlugin() throws Exception {
        assertThat(BROKER.pulsar()
                        .getManagedLedgerStorage()
                        .getDefaultStorageClass()
                        .getName())
                .isEqualTo("bookkeeper");
        assertThat(BROKER.pulsar().getManagedLedgerStorage().getStorageClasses())
                .extracting(c -> c.getName())
                .containsExactly("bookkeeper", "lakestream");
        // Loaded from the NAR (a NarClassLoader), not from the test classpath.
        assertThat(BROKER.pulsar().getBrokerInterceptor()).isNotNull();
        assertThat(BROKER.pulsar().getConfiguration().getBrokerInterceptors()).containsExactly("lakestream");
        assertThatThrownBy(() -> Class.forName("dev.lakestream.handler.StorageClassGuard"))
                .isInstanceOf(ClassNotFoundException.class);
    }

    @Test
    void aNamespaceWithoutPolicyKeepsItsTopicsOnBookKeeper() throws Exception {
        String ns = namespace("bk", null);
        String topic = "persistent://" + ns + "/t";
        int objectsBefore = objectCount();
        PulsarClient client = BROKER.newClient();
        RoundTrips.produce(client, topic, "bk", 10);
        try (Consumer<byte[]> c = RoundTrips.subscribe(client, topic, "s")) {
            assertThat(RoundTrips.receive(c, 10)).isEqualTo(RoundTrips.expected("bk", 0, 10));
        }
        List<Long> ledgers = ledgerIds(topic);
        assertThat(ledgers).isNotEmpty();
        assertThat(BROKER.bookkeeper().ledgerIds())
                .as("the topic's ledgers are BookKeeper ledgers")
                .containsAll(ledgers);
        assertThat(storageOfNode(topic)).isEqualTo("bookkeeper");
        assertThat(managedLedgerClass(topic)).isEqualTo("ManagedLedgerImpl");
        assertThat(objectCount()).as("no object written for a BookKeeper topic").isEqualTo(objectsBefore);
    }

    @Test
    void aLakestreamNamespacePutsItsTopicsInTheBucket() throws Exception {
        String ns = namespace("ls", "lakestream");
        String topic = "persistent://" + ns + "/t";
        int objectsBefore = objectCount();
        PulsarClient client = BROKER.newClient();
        RoundTrips.produce(client, topic, "ls", 10);
        try (Consumer<byte[]> c = RoundTrips.subscribe(client, topic, "s")) {
            assertThat(RoundTrips.receive(c, 10)).isEqualTo(RoundTrips.expected("ls", 0, 10));
        }
        assertThat(objectCount()).as("WAL objects in the bucket").isGreaterThan(objectsBefore);
        assertThat(managedLedgerClass(topic)).isEqualTo("LakestreamManagedLedger");
        assertThat(storageOfNode(topic)).isEqualTo("lakestream");
    }

    @Test
    void sharedSubscriptionsAndAcknowledgementsOnBothStorages() throws Exception {
        PulsarClient client = BROKER.newClient();
        for (String cls : new String[] {null, "lakestream"}) {
            String topic = "persistent://" + namespace(cls == null ? "shared-bk" : "shared-ls", cls) + "/t";
            try (Consumer<byte[]> c1 = shared(client, topic);
                    Consumer<byte[]> c2 = shared(client, topic)) {
                RoundTrips.produce(client, topic, "m", 20);
                Set<String> got = new HashSet<>();
                List<String> all = new ArrayList<>();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (got.size() < 20 && System.nanoTime() < deadline) {
                    for (Consumer<byte[]> c : List.of(c1, c2)) {
                        Message<byte[]> m = c.receive(200, TimeUnit.MILLISECONDS);
                        if (m != null) {
                            all.add(new String(m.getValue(), StandardCharsets.UTF_8));
                            got.add(all.get(all.size() - 1));
                            c.acknowledge(m);
                        }
                    }
                }
                assertThat(got)
                        .as("%s: every message once across both consumers", topic)
                        .containsExactlyInAnyOrderElementsOf(RoundTrips.expected("m", 0, 20));
                assertThat(all).hasSize(20);
                waitFor(
                        () -> BROKER.admin()
                                        .topics()
                                        .getStats(topic)
                                        .getSubscriptions()
                                        .get("shared")
                                        .getMsgBacklog()
                                == 0,
                        topic + ": backlog 0 after acknowledging everything");
            }
        }
    }

    @Test
    void aRestartKeepsMessagesAndSubscriptionsOnBothStorages() throws Exception {
        String bkTopic = "persistent://" + namespace("restart-bk", null) + "/t";
        String lsTopic = "persistent://" + namespace("restart-ls", "lakestream") + "/t";
        PulsarClient client = BROKER.newClient();
        for (String topic : List.of(bkTopic, lsTopic)) {
            RoundTrips.produce(client, topic, "a", 5);
            try (Consumer<byte[]> c = RoundTrips.subscribe(client, topic, "acked")) {
                assertThat(RoundTrips.receive(c, 3)).isEqualTo(RoundTrips.expected("a", 0, 3));
            }
        }
        BROKER.restart();
        PulsarClient after = BROKER.newClient();
        for (String topic : List.of(bkTopic, lsTopic)) {
            try (Consumer<byte[]> c = RoundTrips.subscribe(after, topic, "acked")) {
                assertThat(RoundTrips.receive(c, 2)).as(topic).isEqualTo(RoundTrips.expected("a", 3, 5));
            }
            try (Consumer<byte[]> c = RoundTrips.subscribe(after, topic, "fresh")) {
                assertThat(RoundTrips.receive(c, 5)).as(topic).isEqualTo(RoundTrips.expected("a", 0, 5));
            }
        }
        assertThat(storageOfNode(bkTopic)).isEqualTo("bookkeeper");
        assertThat(storageOfNode(lsTopic)).isEqualTo("lakestream");
    }

    // ----------------------------------------------------------------------------- unknown class: refused at set time

    @Test
    void anUnknownStorageClassIsRefusedWhenSet() throws Exception {
        PulsarAdmin admin = BROKER.admin();
        String ns = namespace("unknown", null);
        String topic = "persistent://" + ns + "/t";
        PersistencePolicies typo = new PersistencePolicies(1, 1, 1, 0, "lakestraem");

        assertThatThrownBy(() -> admin.namespaces().setPersistence(ns, typo))
                .isInstanceOf(PulsarAdminException.PreconditionFailedException.class)
                .hasMessageContaining("Unknown managed-ledger storage class 'lakestraem'")
                .hasMessageContaining("[bookkeeper, lakestream]");
        assertThat(admin.namespaces().getPersistence(ns))
                .as("the policy was not stored")
                .isNull();

        assertThatThrownBy(() -> admin.topics().setPersistence(topic, typo))
                .isInstanceOf(PulsarAdminException.PreconditionFailedException.class)
                .hasMessageContaining("'lakestraem' for topic " + topic);
        assertThatThrownBy(() -> admin.topicPolicies().setPersistence(topic, typo))
                .isInstanceOf(PulsarAdminException.PreconditionFailedException.class)
                .hasMessageContaining("'lakestraem'");

        // Known classes pass (Pulsar then applies the policy as usual).
        admin.namespaces().setPersistence(ns, new PersistencePolicies(1, 1, 1, 0, "lakestream"));
        assertThat(admin.namespaces().getPersistence(ns).getManagedLedgerStorageClassName())
                .isEqualTo("lakestream");
    }

    @Test
    void theCliReportsAnUnknownStorageClass() throws Exception {
        String ns = namespace("cli", null);
        Cli.Result r = Cli.run(
                "pulsar-admin",
                "--admin-url",
                BROKER.webServiceUrl(),
                "namespaces",
                "set-persistence",
                ns,
                "-e",
                "1",
                "-w",
                "1",
                "-a",
                "1",
                "-c",
                "s3");
        assertThat(r.exitCode()).isNotZero();
        assertThat(r.stdout() + r.stderr())
                .contains("Unknown managed-ledger storage class 's3'")
                .contains("[bookkeeper, lakestream]");
        assertThat(BROKER.admin().namespaces().getPersistence(ns)).isNull();
    }

    // ---------------------------------------------------------------------------------- switching with data: refused

    @Test
    void switchingANamespaceWhoseTopicsHoldDataIsRefused() throws Exception {
        PulsarAdmin admin = BROKER.admin();
        PulsarClient client = BROKER.newClient();
        String bkNs = namespace("switch-bk", null);
        String bkTopic = "persistent://" + bkNs + "/held";
        RoundTrips.produce(client, bkTopic, "x", 3);

        PersistencePolicies toLakestream = new PersistencePolicies(1, 1, 1, 0, "lakestream");
        assertThatThrownBy(() -> admin.namespaces().setPersistence(bkNs, toLakestream))
                .isInstanceOf(PulsarAdminException.ConflictException.class)
                .hasMessageContaining("storage class 'lakestream'")
                .hasMessageContaining(bkTopic + " (in bookkeeper)");
        assertThatThrownBy(() -> admin.topics().setPersistence(bkTopic, toLakestream))
                .isInstanceOf(PulsarAdminException.ConflictException.class)
                .hasMessageContaining(bkTopic + " (in bookkeeper)");
        // A policy that keeps the storage (quorums only, or naming the storage it is on) is allowed.
        admin.namespaces().setPersistence(bkNs, new PersistencePolicies(1, 1, 1, 0, "bookkeeper"));
        admin.namespaces().setPersistence(bkNs, new PersistencePolicies(1, 1, 1, 0));

        String lsNs = namespace("switch-ls", "lakestream");
        String lsTopic = "persistent://" + lsNs + "/held";
        RoundTrips.produce(client, lsTopic, "y", 3);
        // Removing the policy would put the namespace back on the default (BookKeeper).
        assertThatThrownBy(() -> admin.namespaces().removePersistence(lsNs))
                .isInstanceOf(PulsarAdminException.ConflictException.class)
                .hasMessageContaining(lsTopic + " (in lakestream)");
        assertThatThrownBy(() -> admin.namespaces().setPersistence(lsNs, new PersistencePolicies(1, 1, 1, 0)))
                .isInstanceOf(PulsarAdminException.ConflictException.class);
        assertThat(admin.namespaces().getPersistence(lsNs).getManagedLedgerStorageClassName())
                .isEqualTo("lakestream");

        // The namespace's system topic (topic-level policies) holds data in its storage too, and is listed.
        assertThatThrownBy(() -> admin.namespaces().setPersistence(bkNs, toLakestream))
                .hasMessageContaining("persistent://" + bkNs + "/__change_events (in bookkeeper)");

        // A topic-level policy on a topic that holds no data yet moves just that topic: a partitioned topic created
        // through the admin API has only zero-byte placeholders until a storage opens its partitions.
        String single = "persistent://" + bkNs + "/single";
        admin.topics().createPartitionedTopic(single, 2);
        admin.topicPolicies().setPersistence(single, toLakestream);
        waitFor(() -> admin.topicPolicies().getPersistence(single) != null, "topic policy of " + single);
        RoundTrips.produce(client, single, "z", 4);
        assertThat(storageOfNode(single + "-partition-0")).isEqualTo("lakestream");
        assertThat(storageOfNode(single + "-partition-1")).isEqualTo("lakestream");
        // Now that it holds data, moving it back is refused too.
        assertThatThrownBy(() -> admin.topicPolicies().removePersistence(single))
                .isInstanceOf(PulsarAdminException.ConflictException.class)
                .hasMessageContaining(single + "-partition-0 (in lakestream)");
        assertThat(storageOfNode(bkTopic)).isEqualTo("bookkeeper");
        // In a Lakestream namespace, removing a topic's policy leaves the topic on the namespace's class: allowed.
        String pinned = "persistent://" + lsNs + "/pinned";
        admin.topics().createPartitionedTopic(pinned, 1);
        admin.topicPolicies().setPersistence(pinned, toLakestream);
        waitFor(() -> admin.topicPolicies().getPersistence(pinned) != null, "topic policy of " + pinned);
        RoundTrips.produce(client, pinned, "p", 1);
        admin.topicPolicies().removePersistence(pinned);

        // The topics of the refused switches still read their data.
        try (Consumer<byte[]> c = RoundTrips.subscribe(client, lsTopic, "s")) {
            assertThat(RoundTrips.receive(c, 3)).isEqualTo(RoundTrips.expected("y", 0, 3));
        }
        try (Consumer<byte[]> c = RoundTrips.subscribe(client, bkTopic, "s")) {
            assertThat(RoundTrips.receive(c, 3)).isEqualTo(RoundTrips.expected("x", 0, 3));
        }
    }

    /**
     * What the storages themselves do when a topic's ledger is opened through the other storage (what Pulsar does
     * when a storage-class policy changes without the plugin's check, e.g. with the plugin not installed).
     */
    @Test
    void aLedgerOpenedThroughTheOtherStorageIsDetected() throws Exception {
        PulsarAdmin admin = BROKER.admin();
        PulsarClient client = BROKER.newClient();
        String bkTopic = "persistent://" + namespace("bind-bk", null) + "/t";
        RoundTrips.produce(client, bkTopic, "b", 3);
        admin.topics().unload(bkTopic);
        String bkLedger = TopicName.get(bkTopic).getPersistenceNamingEncoding();

        ManagedLedgerFactory lakestream = BROKER.pulsar()
                .getManagedLedgerStorage()
                .getManagedLedgerStorageClass("lakestream")
                .orElseThrow()
                .getManagedLedgerFactory();
        assertThatThrownBy(() -> lakestream.open(bkLedger))
                .isInstanceOf(ManagedLedgerException.class)
                .hasMessageContaining("was created in another storage")
                .hasMessageContaining(bkLedger);
        // Nothing was changed: the topic still reads from BookKeeper.
        assertThat(storageOfNode(bkTopic)).isEqualTo("bookkeeper");
        try (Consumer<byte[]> c = RoundTrips.subscribe(client, bkTopic, "s")) {
            assertThat(RoundTrips.receive(c, 3)).isEqualTo(RoundTrips.expected("b", 0, 3));
        }

        String lsTopic = "persistent://" + namespace("bind-ls", "lakestream") + "/t";
        RoundTrips.produce(client, lsTopic, "l", 3);
        admin.topics().unload(lsTopic);
        String lsLedger = TopicName.get(lsTopic).getPersistenceNamingEncoding();
        ManagedLedgerFactory bookkeeper = BROKER.pulsar()
                .getManagedLedgerStorage()
                .getManagedLedgerStorageClass("bookkeeper")
                .orElseThrow()
                .getManagedLedgerFactory();
        // Pulsar's BookKeeper factory cannot parse Lakestream's node (JSON, not a ManagedLedgerInfo): it refuses.
        // (Pulsar 5.0.1: "MetaStoreException: java.lang.IllegalArgumentException: Invalid unknonwn tag type: 3".)
        assertThatThrownBy(() -> bookkeeper.open(lsLedger))
                .isInstanceOf(ManagedLedgerException.class)
                .hasMessageContaining("tag type");
        assertThat(storageOfNode(lsTopic)).isEqualTo("lakestream");
        try (Consumer<byte[]> c = RoundTrips.subscribe(client, lsTopic, "s")) {
            assertThat(RoundTrips.receive(c, 3)).isEqualTo(RoundTrips.expected("l", 0, 3));
        }
    }

    // ------------------------------------------------------------------------------------------------------ helpers

    /** Creates {@code hy/<name>}, with a persistence policy naming {@code storageClass} unless it is null. */
    static String namespace(String name, String storageClass) throws Exception {
        String ns = TENANT + "/" + name;
        BROKER.admin().namespaces().createNamespace(ns);
        if (storageClass != null) {
            BROKER.admin().namespaces().setPersistence(ns, new PersistencePolicies(1, 1, 1, 0, storageClass));
        }
        return ns;
    }

    private static Consumer<byte[]> shared(PulsarClient client, String topic) throws Exception {
        return client.newConsumer()
                .topic(topic)
                .subscriptionName("shared")
                .subscriptionType(SubscriptionType.Shared)
                .receiverQueueSize(5)
                .subscribe();
    }

    private static List<Long> ledgerIds(String topic) throws Exception {
        return BROKER.admin().topics().getInternalStats(topic).ledgers.stream()
                .map((LedgerInfo l) -> l.ledgerId)
                .toList();
    }

    /** The class of the loaded topic's managed ledger (ManagedLedgerImpl is BookKeeper's). */
    private static String managedLedgerClass(String topic) throws Exception {
        PersistentTopic t = (PersistentTopic) BROKER.pulsar()
                .getBrokerService()
                .getTopicReference(topic)
                .orElseThrow(() -> new AssertionError(topic + " is not loaded"));
        return t.getManagedLedger().getClass().getSimpleName();
    }

    /** The storage the topic's /managed-ledgers node names: "lakestream" (our JSON), "bookkeeper" or "none". */
    static String storageOfNode(String topic) throws Exception {
        String path = "/managed-ledgers/" + TopicName.get(topic).getPersistenceNamingEncoding();
        Optional<GetResult> node =
                BROKER.pulsar().getLocalMetadataStore().get(path).get(30, TimeUnit.SECONDS);
        assertThat(node).as("node %s", path).isPresent();
        byte[] v = node.get().getValue();
        if (v.length == 0) {
            return "none";
        }
        return new String(v, StandardCharsets.UTF_8).startsWith("{\"storage\":\"lakestream\"")
                ? "lakestream"
                : "bookkeeper";
    }

    static int objectCount() throws Exception {
        Path bucket = BROKER.s3().dataDir().resolve(BROKER.bucket());
        return Files.isDirectory(bucket) ? RoundTrips.filesUnder(bucket).size() : 0;
    }

    interface Condition {
        boolean holds() throws Exception;
    }

    static void waitFor(Condition c, String what) throws Exception {
        await(what)
                .atMost(Duration.ofMinutes(1))
                .ignoreExceptionsInstanceOf(Exception.class)
                .until(c::holds);
    }
}
