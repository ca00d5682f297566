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
import org.apache.pulsar.client.api.MessageId;
import org.apache.pulsar.client.api.Producer;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.Reader;
import org.apache.pulsar.client.api.SubscriptionType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Delayed delivery, seek by message id and by time, and readers, on a broker on S3Proxy + Oxia. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class DelayedDeliverySeekAndReadersTest {

    @RegisterExtension
    static final PulsarBrokerExtension BROKER = PulsarBrokerExtension.onS3ProxyAndOxia();

    private static PulsarClient client;

    @BeforeAll
    static void client() throws Exception {
        client = BROKER.newClient();
    }

    private static String topic(String name) {
        return "persistent://public/default/seek-" + name;
    }

    private static List<MessageId> send(String topic, String prefix, int n) throws Exception {
        List<MessageId> ids = new ArrayList<>();
        try (Producer<byte[]> p =
                client.newProducer().topic(topic).enableBatching(false).create()) {
            for (int i = 0; i < n; i++) {
                ids.add(p.send((prefix + "-" + i).getBytes(StandardCharsets.UTF_8)));
            }
        }
        return ids;
    }

    @Test
    void deliverAfterAndDeliverAtHoldMessagesBack() throws Exception {
        String t = topic("delayed");
        try (Consumer<byte[]> c = client.newConsumer()
                        .topic(t)
                        .subscriptionName("d")
                        .subscriptionType(SubscriptionType.Shared)
                        .subscribe();
                Producer<byte[]> p =
                        client.newProducer().topic(t).enableBatching(false).create()) {
            long sentAt = System.currentTimeMillis();
            p.newMessage()
                    .value("after".getBytes(StandardCharsets.UTF_8))
                    .deliverAfter(4, TimeUnit.SECONDS)
                    .send();
            p.newMessage()
                    .value("at".getBytes(StandardCharsets.UTF_8))
                    .deliverAt(sentAt + 4_000)
                    .send();
            p.newMessage().value("now".getBytes(StandardCharsets.UTF_8)).send();

            Message<byte[]> first = c.receive(20, TimeUnit.SECONDS);
            assertThat(new String(first.getValue(), StandardCharsets.UTF_8)).isEqualTo("now");
            c.acknowledge(first);
            List<String> delayed = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                Message<byte[]> m = c.receive(30, TimeUnit.SECONDS);
                assertThat(m).as("delayed message %d", i).isNotNull();
                // The in-memory tracker delivers at most one tick (1 s) early.
                assertThat(System.currentTimeMillis() - sentAt)
                        .as("delay of %s", new String(m.getValue(), StandardCharsets.UTF_8))
                        .isGreaterThanOrEqualTo(2_900);
                delayed.add(new String(m.getValue(), StandardCharsets.UTF_8));
                c.acknowledge(m);
            }
            assertThat(delayed).containsExactlyInAnyOrder("after", "at");
            RoundTrips.assertNothingMore(c, 1000);
        }
        assertThat(BROKER.admin()
                        .topics()
                        .getStats(t)
                        .getSubscriptions()
                        .get("d")
                        .getMsgBacklog())
                .isZero();
    }

    @Test
    void seekByMessageIdRewindsTheSubscription() throws Exception {
        String t = topic("by-id");
        List<MessageId> ids = send(t, "m", 10);
        try (Consumer<byte[]> c = RoundTrips.subscribe(client, t, "s")) {
            assertThat(RoundTrips.receive(c, 10)).isEqualTo(RoundTrips.expected("m", 0, 10));
            // The client resumes after the message it seeks to (unless startMessageIdInclusive).
            c.seek(ids.get(3));
            assertThat(RoundTrips.receive(c, 6)).isEqualTo(RoundTrips.expected("m", 4, 10));
            c.seek(MessageId.earliest);
            assertThat(RoundTrips.receive(c, 10)).isEqualTo(RoundTrips.expected("m", 0, 10));
            RoundTrips.assertNothingMore(c, 1000);
        }
        // An admin reset by id moves the subscription to that message, included.
        BROKER.admin().topics().resetCursor(t, "s", ids.get(8));
        try (Consumer<byte[]> c = RoundTrips.subscribe(client, t, "s")) {
            assertThat(RoundTrips.receive(c, 2)).isEqualTo(RoundTrips.expected("m", 8, 10));
        }
    }

    @Test
    void subscriptionsCreatedByTheAdminStartAtLatestOrEarliest() throws Exception {
        // pulsar-admin topics create-subscription defaults to --messageId latest: it once failed, "cannot reset
        // cursor ... to 9223372036854775807:9223372036854775807: not within the ledger", after creating the cursor.
        String t = topic("admin-created");
        send(t, "old", 5);
        BROKER.admin().topics().createSubscription(t, "at-latest", MessageId.latest);
        BROKER.admin().topics().createSubscription(t, "at-earliest", MessageId.earliest);
        assertThat(BROKER.admin().topics().getStats(t).getSubscriptions())
                .hasEntrySatisfying(
                        "at-latest", s -> assertThat(s.getMsgBacklog()).isZero())
                .hasEntrySatisfying(
                        "at-earliest", s -> assertThat(s.getMsgBacklog()).isEqualTo(5));
        send(t, "new", 2);
        try (Consumer<byte[]> c = RoundTrips.subscribe(client, t, "at-latest")) {
            assertThat(RoundTrips.receive(c, 2)).isEqualTo(RoundTrips.expected("new", 0, 2));
            RoundTrips.assertNothingMore(c, 1000);
        }
        // An admin reset to latest moves an existing subscription past everything.
        BROKER.admin().topics().resetCursor(t, "at-earliest", MessageId.latest);
        assertThat(BROKER.admin()
                        .topics()
                        .getStats(t)
                        .getSubscriptions()
                        .get("at-earliest")
                        .getMsgBacklog())
                .isZero();
    }

    @Test
    void seekByTimeFindsTheFirstMessageAtOrAfterIt() throws Exception {
        String t = topic("by-time");
        send(t, "early", 5);
        long lastEarly = System.currentTimeMillis();
        await("the clock moves past the early messages")
                .atMost(Duration.ofSeconds(10))
                .ignoreExceptionsInstanceOf(Exception.class)
                .until(() -> System.currentTimeMillis() > lastEarly + 5);
        List<MessageId> late = send(t, "late", 5);
        long boundary;
        try (Reader<byte[]> r = client.newReader()
                .topic(t)
                .startMessageId(late.get(0))
                .startMessageIdInclusive()
                .create()) {
            boundary = r.readNext(20, TimeUnit.SECONDS).getPublishTime();
        }
        try (Consumer<byte[]> c = RoundTrips.subscribe(client, t, "s")) {
            assertThat(RoundTrips.receive(c, 10)).hasSize(10);
            c.seek(boundary);
            assertThat(RoundTrips.receive(c, 5)).isEqualTo(RoundTrips.expected("late", 0, 5));
            RoundTrips.assertNothingMore(c, 1000);
            c.seek(0L);
            assertThat(RoundTrips.receive(c, 10)).hasSize(10).startsWith("early-0");
        }
    }

    @Test
    void readersStartWhereAskedAndKnowTheEnd() throws Exception {
        String t = topic("reader");
        List<MessageId> ids = send(t, "r", 10);

        try (Reader<byte[]> r =
                client.newReader().topic(t).startMessageId(MessageId.earliest).create()) {
            List<String> got = new ArrayList<>();
            while (r.hasMessageAvailable()) {
                got.add(new String(r.readNext(20, TimeUnit.SECONDS).getValue(), StandardCharsets.UTF_8));
            }
            assertThat(got).isEqualTo(RoundTrips.expected("r", 0, 10));
            assertThat(r.hasMessageAvailable()).isFalse();
        }
        try (Reader<byte[]> r = client.newReader()
                .topic(t)
                .startMessageId(ids.get(3))
                .startMessageIdInclusive()
                .create()) {
            assertThat(new String(r.readNext(20, TimeUnit.SECONDS).getValue(), StandardCharsets.UTF_8))
                    .isEqualTo("r-3");
        }
        try (Reader<byte[]> r =
                client.newReader().topic(t).startMessageId(ids.get(3)).create()) {
            assertThat(new String(r.readNext(20, TimeUnit.SECONDS).getValue(), StandardCharsets.UTF_8))
                    .isEqualTo("r-4");
        }
        try (Reader<byte[]> r =
                client.newReader().topic(t).startMessageId(MessageId.latest).create()) {
            assertThat(r.hasMessageAvailable()).isFalse();
            send(t, "tail", 1);
            assertThat(new String(r.readNext(20, TimeUnit.SECONDS).getValue(), StandardCharsets.UTF_8))
                    .isEqualTo("tail-0");
        }
        try (Consumer<byte[]> c = RoundTrips.subscribe(client, t, "last")) {
            MessageId last = c.getLastMessageId();
            try (Reader<byte[]> r = client.newReader()
                    .topic(t)
                    .startMessageId(last)
                    .startMessageIdInclusive()
                    .create()) {
                assertThat(new String(r.readNext(20, TimeUnit.SECONDS).getValue(), StandardCharsets.UTF_8))
                        .isEqualTo("tail-0");
            }
            assertThat(last).isNotEqualTo(ids.get(9)).isGreaterThan(ids.get(9));
        }
    }
}
