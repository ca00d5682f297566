package dev.lakestream.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.pulsar.client.api.BatcherBuilder;
import org.apache.pulsar.client.api.Consumer;
import org.apache.pulsar.client.api.Message;
import org.apache.pulsar.client.api.MessageId;
import org.apache.pulsar.client.api.Producer;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.Reader;
import org.apache.pulsar.client.api.SubscriptionInitialPosition;
import org.apache.pulsar.client.api.SubscriptionType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Compaction in a broker, seen from the stock client: the broker plugin compacts the topic's stream into Parquet
 * segments (delay 0, a pass a second, small segments) while and after messages are published, and a subscription made
 * before the first send, a reader from the earliest message, a seek and a subscription made after a broker restart
 * each get every acknowledged message once, in order and byte for byte: batches of 128 KiB, 300 KB messages and a
 * chunked 7 MB message, read across segments and the WAL tail.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class StreamCompactionTest {

    @RegisterExtension
    static final PulsarBrokerExtension BROKER = PulsarBrokerExtension.onS3ProxyAndOxia()
            .config("lakestream.compaction.delay", "0s")
            .config("lakestream.compaction.interval", "1s")
            .config("lakestream.compaction.segmentSize", "256KiB");

    private static final int SMALL = 3000;
    private static final int LARGE = 12;

    @Test
    void everyMessageIsDeliveredOnceAcrossSegmentsAndTheWal() throws Exception {
        String topic = "persistent://public/default/compacted-stream";
        BROKER.admin().topics().createNonPartitionedTopic(topic);
        BROKER.admin().topics().createSubscription(topic, "before", MessageId.earliest);
        List<String> sent = new ArrayList<>();
        MessageId last;
        try (PulsarClient client = BROKER.newClient()) {
            last = publish(client, topic, sent);
            // The compactor has moved most of the stream into segments.
            await("segments written for the topic")
                    .atMost(Duration.ofSeconds(90))
                    .pollInterval(Duration.ofMillis(500))
                    .until(() -> metric("lakestream_compaction_segments_written_total") >= 5 && segmentFiles() >= 5);
            assertThat(metric("lakestream_compaction_failures_total")).isZero();

            assertThat(consumeAll(client, topic, "before", sent.size())).containsExactlyElementsOf(sent);
            assertThat(readAll(client, topic, MessageId.earliest, sent.size())).containsExactlyElementsOf(sent);
            assertThat(BROKER.admin().topics().getLastMessageId(topic)).isEqualTo(last);

            // A seek back to the start of the stream, then to the middle, on a subscription made now.
            try (Consumer<byte[]> c = client.newConsumer()
                    .topic(topic)
                    .subscriptionName("seeker")
                    .subscriptionInitialPosition(SubscriptionInitialPosition.Latest)
                    .subscribe()) {
                c.seek(MessageId.earliest);
                assertThat(receive(c, sent.size())).containsExactlyElementsOf(sent);
            }
        }
        BROKER.restart();
        try (PulsarClient client = BROKER.newClient()) {
            BROKER.admin().topics().createSubscription(topic, "after-restart", MessageId.earliest);
            assertThat(consumeAll(client, topic, "after-restart", sent.size())).containsExactlyElementsOf(sent);
        }
    }

    /** Publishes small batched messages, large ones and a chunked one; returns the last message's id. */
    private static MessageId publish(PulsarClient client, String topic, List<String> sent) throws Exception {
        Random random = new Random(20261204L);
        try (Producer<byte[]> batched = client.newProducer()
                        .topic(topic)
                        .enableBatching(true)
                        .batchingMaxBytes(128 << 10)
                        .batchingMaxMessages(1000)
                        .batchingMaxPublishDelay(5, TimeUnit.MILLISECONDS)
                        .batcherBuilder(BatcherBuilder.DEFAULT)
                        .create();
                Producer<byte[]> chunked = client.newProducer()
                        .topic(topic)
                        .enableBatching(false)
                        .enableChunking(true)
                        .chunkMaxMessageSize(1 << 20)
                        .create()) {
            List<CompletableFuture<MessageId>> pending = new ArrayList<>();
            for (int i = 0; i < SMALL; i++) {
                byte[] body = message("small-" + i, 200 + random.nextInt(1800), random);
                sent.add(digest(body));
                pending.add(batched.sendAsync(body));
                if (i % 500 == 499) {
                    batched.flush();
                    CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new))
                            .join();
                    byte[] large = message("large-" + i, 300_000, random);
                    sent.add(digest(large));
                    pending.add(chunked.sendAsync(large));
                }
            }
            batched.flush();
            CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).join();
            byte[] huge = message("chunked", 7 << 20, random);
            sent.add(digest(huge));
            MessageId lastId = chunked.send(huge);
            for (int i = 0; i < LARGE; i++) {
                byte[] large = message("tail-" + i, 300_000, random);
                sent.add(digest(large));
                lastId = chunked.send(large);
            }
            return lastId;
        }
    }

    private static byte[] message(String name, int size, Random random) {
        byte[] b = new byte[size];
        random.nextBytes(b);
        byte[] head = (name + ":").getBytes(StandardCharsets.UTF_8);
        System.arraycopy(head, 0, b, 0, Math.min(head.length, size));
        return b;
    }

    /** A message's name and checksum: what the test compares (a wrong byte shows). */
    private static String digest(byte[] body) {
        java.util.zip.CRC32 crc = new java.util.zip.CRC32();
        crc.update(body);
        String text = new String(body, 0, Math.min(body.length, 24), StandardCharsets.ISO_8859_1);
        return text.substring(0, Math.max(0, text.indexOf(':'))) + "/" + body.length + "/" + crc.getValue();
    }

    private static List<String> consumeAll(PulsarClient client, String topic, String subscription, int n)
            throws Exception {
        try (Consumer<byte[]> c = client.newConsumer()
                .topic(topic)
                .subscriptionName(subscription)
                .subscriptionType(SubscriptionType.Exclusive)
                .subscribe()) {
            return receive(c, n);
        }
    }

    /** Receives and acknowledges {@code n} messages; fails naming how many came when fewer do. */
    private static List<String> receive(Consumer<byte[]> c, int n) throws Exception {
        List<String> got = new ArrayList<>();
        while (got.size() < n) {
            Message<byte[]> m = c.receive(30, TimeUnit.SECONDS);
            assertThat(m)
                    .as("message %d of %d (received %d)", got.size() + 1, n, got.size())
                    .isNotNull();
            got.add(digest(m.getValue()));
            c.acknowledge(m);
        }
        assertThat(c.receive(1, TimeUnit.SECONDS)).as("nothing more").isNull();
        return got;
    }

    private static List<String> readAll(PulsarClient client, String topic, MessageId from, int n) throws Exception {
        try (Reader<byte[]> r =
                client.newReader().topic(topic).startMessageId(from).create()) {
            List<String> got = new ArrayList<>();
            while (got.size() < n) {
                Message<byte[]> m = r.readNext(30, TimeUnit.SECONDS);
                assertThat(m).as("message %d of %d", got.size() + 1, n).isNotNull();
                got.add(digest(m.getValue()));
            }
            assertThat(r.hasMessageAvailable()).isFalse();
            return got;
        }
    }

    private static double metric(String name) throws Exception {
        return BrokerMetrics.value(BrokerMetrics.scrape(BROKER), name, "cluster=");
    }

    /** Segment objects in the bucket (under the broker's key prefix). */
    private static long segmentFiles() throws Exception {
        Path dir = BROKER.s3().dataDir().resolve(BROKER.bucket());
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile)
                    .filter(f -> dir.relativize(f).toString().contains("segments/"))
                    .count();
        }
    }
}
