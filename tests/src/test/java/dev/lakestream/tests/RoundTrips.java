package dev.lakestream.tests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.pulsar.client.api.Consumer;
import org.apache.pulsar.client.api.Message;
import org.apache.pulsar.client.api.Producer;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.PulsarClientException;
import org.apache.pulsar.client.api.SubscriptionInitialPosition;

/** Produce and consume with the real client, as the end-to-end tests do it. */
final class RoundTrips {

    private RoundTrips() {}

    /** Sends {@code prefix-0 .. prefix-(n-1)} (bytes, no schema) and waits for every acknowledgement. */
    static void produce(PulsarClient client, String topic, String prefix, int n) throws PulsarClientException {
        try (Producer<byte[]> producer = client.newProducer()
                .topic(topic)
                .enableBatching(false)
                .sendTimeout(30, TimeUnit.SECONDS)
                .create()) {
            for (int i = 0; i < n; i++) {
                producer.send((prefix + "-" + i).getBytes(StandardCharsets.UTF_8));
            }
        }
    }

    /** A durable subscription starting at the earliest message. */
    static Consumer<byte[]> subscribe(PulsarClient client, String topic, String subscription)
            throws PulsarClientException {
        return client.newConsumer()
                .topic(topic)
                .subscriptionName(subscription)
                .subscriptionInitialPosition(SubscriptionInitialPosition.Earliest)
                .subscribe();
    }

    /** Receives exactly {@code n} messages (failing after 20 s without one), acknowledging each; their payloads. */
    static List<String> receive(Consumer<byte[]> consumer, int n) throws PulsarClientException {
        List<String> got = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Message<byte[]> m = consumer.receive(20, TimeUnit.SECONDS);
            assertThat(m)
                    .as("message %d of %d on %s (got %s)", i + 1, n, consumer.getTopic(), got)
                    .isNotNull();
            got.add(new String(m.getValue(), StandardCharsets.UTF_8));
            consumer.acknowledge(m);
        }
        return got;
    }

    /** Asserts that nothing more arrives within {@code millis}. */
    static void assertNothingMore(Consumer<byte[]> consumer, int millis) throws PulsarClientException {
        Message<byte[]> m = consumer.receive(millis, TimeUnit.MILLISECONDS);
        assertThat(m).as("no further message").isNull();
    }

    static List<String> expected(String prefix, int from, int to) {
        List<String> l = new ArrayList<>();
        for (int i = from; i < to; i++) {
            l.add(prefix + "-" + i);
        }
        return l;
    }

    /** The regular files under {@code dir}, as paths relative to it. */
    static List<String> filesUnder(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(Files::isRegularFile)
                    .map(p -> dir.relativize(p).toString())
                    .sorted()
                    .toList();
        }
    }
}
