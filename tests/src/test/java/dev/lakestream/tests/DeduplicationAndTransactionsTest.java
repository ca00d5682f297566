package dev.lakestream.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.pulsar.client.api.Consumer;
import org.apache.pulsar.client.api.Message;
import org.apache.pulsar.client.api.Producer;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.SubscriptionInitialPosition;
import org.apache.pulsar.client.api.SubscriptionType;
import org.apache.pulsar.client.api.transaction.Transaction;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Message deduplication (per namespace) and transactions (produce and acknowledge in a transaction, commit and
 * abort) on a broker on S3Proxy + Oxia: the deduplication cursor, the coordinators' logs, the transaction buffers and
 * the pending-ack stores are all Lakestream managed ledgers.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DeduplicationAndTransactionsTest {

    @RegisterExtension
    static final PulsarBrokerExtension BROKER = PulsarBrokerExtension.onS3ProxyAndOxia();

    private static PulsarClient client;

    @BeforeAll
    static void setUp() throws Exception {
        client = BROKER.newClient(b -> b.enableTransaction(true));
        BROKER.admin().namespaces().createNamespace("public/dedup");
        BROKER.admin().namespaces().setDeduplicationStatus("public/dedup", true);
    }

    private static List<String> drain(Consumer<byte[]> c, int quietMillis) throws Exception {
        List<String> got = new ArrayList<>();
        Message<byte[]> m;
        while ((m = c.receive(quietMillis, TimeUnit.MILLISECONDS)) != null) {
            got.add(new String(m.getValue(), StandardCharsets.UTF_8));
            c.acknowledge(m);
        }
        return got;
    }

    private static Producer<byte[]> producer(String topic, String name) throws Exception {
        return client.newProducer()
                .topic(topic)
                .producerName(name)
                .enableBatching(false)
                .sendTimeout(0, TimeUnit.SECONDS)
                .create();
    }

    @Test
    void deduplicationDropsResentSequenceIdsAlsoAfterAReconnect() throws Exception {
        String t = "persistent://public/dedup/orders";
        try (Consumer<byte[]> c = RoundTrips.subscribe(client, t, "s")) {
            try (Producer<byte[]> p = producer(t, "orders-producer")) {
                for (long seq = 0; seq < 5; seq++) {
                    p.newMessage()
                            .sequenceId(seq)
                            .value(("o-" + seq).getBytes(StandardCharsets.UTF_8))
                            .send();
                }
                // A resend of what the broker already has (as after a lost receipt).
                p.newMessage()
                        .sequenceId(3)
                        .value("o-3".getBytes(StandardCharsets.UTF_8))
                        .send();
                p.newMessage()
                        .sequenceId(4)
                        .value("o-4".getBytes(StandardCharsets.UTF_8))
                        .send();
                assertThat(p.getLastSequenceId()).isEqualTo(4);
            }
            assertThat(drain(c, 2000)).isEqualTo(List.of("o-0", "o-1", "o-2", "o-3", "o-4"));

            // The topic is reloaded: the broker rebuilds the producer's last sequence id from the managed ledger.
            BROKER.admin().topics().unload(t);
            try (Producer<byte[]> p = producer(t, "orders-producer")) {
                assertThat(p.getLastSequenceId())
                        .as("last sequence id told to the reconnected producer")
                        .isEqualTo(4);
                p.newMessage()
                        .sequenceId(4)
                        .value("o-4".getBytes(StandardCharsets.UTF_8))
                        .send();
                p.newMessage()
                        .sequenceId(5)
                        .value("o-5".getBytes(StandardCharsets.UTF_8))
                        .send();
            }
            assertThat(drain(c, 2000)).isEqualTo(List.of("o-5"));
        }
        assertThat(BROKER.admin().topics().getInternalStats(t).cursors).containsKey("pulsar.dedup");
        assertThat(BROKER.admin().topics().getInternalStats(t).entriesAddedCounter)
                .as("entries stored since the reload")
                .isEqualTo(1);
        List<String> all = new ArrayList<>();
        try (var r = client.newReader()
                .topic(t)
                .startMessageId(org.apache.pulsar.client.api.MessageId.earliest)
                .create()) {
            while (r.hasMessageAvailable()) {
                all.add(new String(r.readNext(20, TimeUnit.SECONDS).getValue(), StandardCharsets.UTF_8));
            }
        }
        assertThat(all).isEqualTo(List.of("o-0", "o-1", "o-2", "o-3", "o-4", "o-5"));
    }

    @Test
    void committedTransactionsAreVisibleAndAbortedOnesAreNot() throws Exception {
        String t = "persistent://public/default/txn-produce";
        try (Consumer<byte[]> c = client.newConsumer()
                        .topic(t)
                        .subscriptionName("s")
                        .subscriptionType(SubscriptionType.Shared)
                        .subscriptionInitialPosition(SubscriptionInitialPosition.Earliest)
                        .subscribe();
                Producer<byte[]> p = client.newProducer()
                        .topic(t)
                        .sendTimeout(0, TimeUnit.SECONDS)
                        .enableBatching(false)
                        .create()) {
            Transaction committed = client.newTransaction()
                    .withTransactionTimeout(2, TimeUnit.MINUTES)
                    .build()
                    .get();
            for (int i = 0; i < 3; i++) {
                p.newMessage(committed)
                        .value(("a-" + i).getBytes(StandardCharsets.UTF_8))
                        .send();
            }
            assertThat(c.receive(1500, TimeUnit.MILLISECONDS))
                    .as("nothing visible before the commit")
                    .isNull();
            committed.commit().get(30, TimeUnit.SECONDS);
            assertThat(RoundTrips.receive(c, 3)).isEqualTo(RoundTrips.expected("a", 0, 3));

            Transaction aborted = client.newTransaction()
                    .withTransactionTimeout(2, TimeUnit.MINUTES)
                    .build()
                    .get();
            p.newMessage(aborted).value("b-0".getBytes(StandardCharsets.UTF_8)).send();
            p.newMessage(aborted).value("b-1".getBytes(StandardCharsets.UTF_8)).send();
            aborted.abort().get(30, TimeUnit.SECONDS);
            p.send("c-0".getBytes(StandardCharsets.UTF_8));
            assertThat(drain(c, 2000))
                    .as("aborted messages are never delivered")
                    .containsExactly("c-0");
        }
        assertThat(BROKER.admin()
                        .topics()
                        .getStats(t)
                        .getSubscriptions()
                        .get("s")
                        .getMsgBacklog())
                .isZero();
    }

    @Test
    void acknowledgementsInATransactionCountOnlyOnCommit() throws Exception {
        String t = "persistent://public/default/txn-ack";
        try (Producer<byte[]> p =
                        client.newProducer().topic(t).enableBatching(false).create();
                Consumer<byte[]> c = client.newConsumer()
                        .topic(t)
                        .subscriptionName("s")
                        .subscriptionType(SubscriptionType.Shared)
                        .subscriptionInitialPosition(SubscriptionInitialPosition.Earliest)
                        .subscribe()) {
            p.send("d-0".getBytes(StandardCharsets.UTF_8));
            Message<byte[]> m = c.receive(20, TimeUnit.SECONDS);

            Transaction aborted = client.newTransaction()
                    .withTransactionTimeout(2, TimeUnit.MINUTES)
                    .build()
                    .get();
            c.acknowledgeAsync(m.getMessageId(), aborted).get(30, TimeUnit.SECONDS);
            aborted.abort().get(30, TimeUnit.SECONDS);
            c.redeliverUnacknowledgedMessages();
            Message<byte[]> again = c.receive(20, TimeUnit.SECONDS);
            assertThat(again).as("redelivered after the aborted ack").isNotNull();
            assertThat(new String(again.getValue(), StandardCharsets.UTF_8)).isEqualTo("d-0");

            Transaction committed = client.newTransaction()
                    .withTransactionTimeout(2, TimeUnit.MINUTES)
                    .build()
                    .get();
            c.acknowledgeAsync(again.getMessageId(), committed).get(30, TimeUnit.SECONDS);
            committed.commit().get(30, TimeUnit.SECONDS);
        }
        await("the committed ack reaches the subscription")
                .atMost(Duration.ofSeconds(30))
                .ignoreExceptionsInstanceOf(Exception.class)
                .until(() -> BROKER.admin()
                                .topics()
                                .getStats(t)
                                .getSubscriptions()
                                .get("s")
                                .getMsgBacklog()
                        == 0);
        try (Consumer<byte[]> c = client.newConsumer()
                .topic(t)
                .subscriptionName("s")
                .subscriptionType(SubscriptionType.Shared)
                .subscribe()) {
            RoundTrips.assertNothingMore(c, 1500);
        }
        // The subscription's pending acks are kept in a managed ledger of their own, on Lakestream.
        assertThat(BROKER.pulsar()
                        .getManagedLedgerStorage()
                        .getDefaultStorageClass()
                        .getManagedLedgerFactory()
                        .asyncExists("public/default/persistent/txn-ack-s__transaction_pending_ack")
                        .get(30, TimeUnit.SECONDS))
                .isTrue();
    }

    /** Last, as it restarts the broker: what deduplication and the coordinators keep survives a restart. */
    @Test
    @Order(Integer.MAX_VALUE)
    void sequenceIdsAndOpenTransactionsSurviveABrokerRestart() throws Exception {
        String dedupTopic = "persistent://public/dedup/restart";
        String txnTopic = "persistent://public/default/txn-restart";
        try (Producer<byte[]> p = producer(dedupTopic, "restart-producer")) {
            for (long seq = 0; seq < 3; seq++) {
                p.newMessage()
                        .sequenceId(seq)
                        .value(("r-" + seq).getBytes(StandardCharsets.UTF_8))
                        .send();
            }
        }
        client.newConsumer().topic(txnTopic).subscriptionName("s").subscribe().close();
        Transaction open = client.newTransaction()
                .withTransactionTimeout(5, TimeUnit.MINUTES)
                .build()
                .get();
        try (Producer<byte[]> p = client.newProducer()
                .topic(txnTopic)
                .sendTimeout(0, TimeUnit.SECONDS)
                .enableBatching(false)
                .create()) {
            p.newMessage(open).value("t-0".getBytes(StandardCharsets.UTF_8)).send();
            p.newMessage(open).value("t-1".getBytes(StandardCharsets.UTF_8)).send();
        }

        BROKER.restart();

        try (Producer<byte[]> p = producer(dedupTopic, "restart-producer")) {
            assertThat(p.getLastSequenceId()).isEqualTo(2);
            p.newMessage()
                    .sequenceId(2)
                    .value("r-2".getBytes(StandardCharsets.UTF_8))
                    .send();
            p.newMessage()
                    .sequenceId(3)
                    .value("r-3".getBytes(StandardCharsets.UTF_8))
                    .send();
        }
        List<String> all = new ArrayList<>();
        try (var r = client.newReader()
                .topic(dedupTopic)
                .startMessageId(org.apache.pulsar.client.api.MessageId.earliest)
                .create()) {
            while (r.hasMessageAvailable()) {
                all.add(new String(r.readNext(20, TimeUnit.SECONDS).getValue(), StandardCharsets.UTF_8));
            }
        }
        assertThat(all).isEqualTo(List.of("r-0", "r-1", "r-2", "r-3"));

        // The coordinator recovered the open transaction from its log; committing it now publishes its messages.
        open.commit().get(60, TimeUnit.SECONDS);
        try (Consumer<byte[]> c = client.newConsumer()
                .topic(txnTopic)
                .subscriptionName("s")
                .subscriptionType(SubscriptionType.Shared)
                .subscribe()) {
            assertThat(drain(c, 3000)).isEqualTo(List.of("t-0", "t-1"));
        }
    }
}
