package dev.lakestream.tests;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.pulsar.client.api.Consumer;
import org.apache.pulsar.client.api.Message;
import org.apache.pulsar.client.api.MessageId;
import org.apache.pulsar.client.api.Producer;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.PulsarClientException;
import org.apache.pulsar.client.api.Reader;
import org.apache.pulsar.client.api.SubscriptionInitialPosition;
import org.apache.pulsar.client.api.SubscriptionType;

/**
 * A producer and a consumer running on one topic while a test restarts, unloads or kills brokers, and the bookkeeping
 * to judge the outcome: which messages the broker acknowledged to the producer, which the consumer received and how
 * often, and what a reader finds stored in the topic afterwards.
 *
 * <p>Messages are {@code <n>} as text, sent in order at a steady rate; the producer never times a send out, so every
 * send either is acknowledged or fails with an error the test sees.
 */
final class CountedTraffic implements AutoCloseable {

    private final PulsarClient client;
    private final String topic;
    private final Set<Integer> acked = ConcurrentHashMap.newKeySet();
    private final Map<Integer, String> failed = new ConcurrentHashMap<>();
    private final Map<Integer, AtomicInteger> received = new ConcurrentHashMap<>();
    private final Set<Integer> ackConfirmed = ConcurrentHashMap.newKeySet();
    private final AtomicInteger sent = new AtomicInteger();
    private final AtomicReference<Throwable> consumerError = new AtomicReference<>();
    private volatile boolean stopConsuming;
    private Thread producerThread;
    private Thread consumerThread;
    private Producer<byte[]> producer;
    private Consumer<byte[]> consumer;

    CountedTraffic(PulsarClient client, String topic) {
        this.client = client;
        this.topic = topic;
    }

    /** Subscribes, then sends {@code count} messages at {@code perSecond} in the background, consuming as they come. */
    CountedTraffic start(int count, int perSecond) throws PulsarClientException {
        // Ack receipts: the broker confirms each acknowledgement, so the test knows which ones it holds.
        consumer = client.newConsumer().topic(topic).subscriptionName("counted")
                .subscriptionType(SubscriptionType.Failover).isAckReceiptEnabled(true)
                .subscriptionInitialPosition(SubscriptionInitialPosition.Earliest).subscribe();
        producer = client.newProducer().topic(topic).producerName("counted-producer")
                .sendTimeout(0, TimeUnit.SECONDS).blockIfQueueFull(true)
                .enableBatching(true).batchingMaxPublishDelay(2, TimeUnit.MILLISECONDS).create();
        long intervalNanos = TimeUnit.SECONDS.toNanos(1) / perSecond;
        producerThread = Thread.ofPlatform().name("counted-producer").start(() -> {
            long next = System.nanoTime();
            for (int i = 0; i < count; i++) {
                int n = i;
                producer.sendAsync(Integer.toString(n).getBytes()).whenComplete((id, e) -> {
                    if (e == null) {
                        acked.add(n);
                    } else {
                        failed.put(n, e.toString());
                    }
                });
                sent.incrementAndGet();
                next += intervalNanos;
                long wait = next - System.nanoTime();
                if (wait > 0) {
                    try {
                        TimeUnit.NANOSECONDS.sleep(wait);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }
        });
        consumerThread = Thread.ofPlatform().name("counted-consumer").start(() -> {
            while (!stopConsuming) {
                try {
                    Message<byte[]> m = consumer.receive(200, TimeUnit.MILLISECONDS);
                    if (m != null) {
                        int n = Integer.parseInt(new String(m.getValue()));
                        received.computeIfAbsent(n, k -> new AtomicInteger()).incrementAndGet();
                        consumer.acknowledgeAsync(m).thenRun(() -> ackConfirmed.add(n));
                    }
                } catch (PulsarClientException e) {
                    if (!stopConsuming && !(e instanceof PulsarClientException.AlreadyClosedException)) {
                        consumerError.compareAndSet(null, e);
                    }
                    return;
                }
            }
        });
        return this;
    }

    /** How many sends were issued so far. */
    int sent() {
        return sent.get();
    }

    int ackedCount() {
        return acked.size();
    }

    /**
     * Waits until every send issued was answered (acknowledged or failed) and the consumer has received every
     * acknowledged message; fails naming what is missing.
     */
    void awaitSettled(int count, long timeoutSeconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        producerThread.join(TimeUnit.SECONDS.toMillis(timeoutSeconds));
        while (System.nanoTime() < deadline && (acked.size() + failed.size() < count || !missing().isEmpty())) {
            Thread.sleep(100);
        }
        assertThat(acked.size() + failed.size()).as("sends answered of %d (acked %d, failed %d)", count,
                acked.size(), failed.size()).isEqualTo(count);
        assertThat(missing()).as("acknowledged to the producer but never received by the consumer").isEmpty();
        assertThat(consumerError.get()).as("consumer error").isNull();
    }

    /** Acknowledged messages the consumer has not received yet. */
    List<Integer> missing() {
        List<Integer> l = new ArrayList<>();
        for (int n : acked) {
            if (!received.containsKey(n)) {
                l.add(n);
            }
        }
        l.sort(null);
        return l.size() > 20 ? l.subList(0, 20) : l;
    }

    /** Messages whose acknowledgement the broker confirmed so far. */
    Set<Integer> ackConfirmed() {
        return Set.copyOf(ackConfirmed);
    }

    /** Of {@code messages}, those the consumer received more than once. */
    List<Integer> receivedTwiceAmong(Set<Integer> messages) {
        return messages.stream().filter(n -> received.get(n) != null && received.get(n).get() > 1).sorted()
                .toList();
    }

    Map<Integer, String> failed() {
        return new TreeMap<>(failed);
    }

    /** Messages the consumer received more than once (redeliveries). */
    long redelivered() {
        return received.values().stream().filter(c -> c.get() > 1).count();
    }

    /**
     * Reads the whole topic from the start with a reader: how many times each message is stored. Fails if the reader
     * does not reach the last message id.
     */
    static Map<Integer, Integer> stored(PulsarClient client, String topic) throws java.io.IOException {
        Map<Integer, Integer> counts = new TreeMap<>();
        try (Reader<byte[]> reader = client.newReader().topic(topic).startMessageId(MessageId.earliest).create()) {
            while (reader.hasMessageAvailable()) {
                Message<byte[]> m = reader.readNext(30, TimeUnit.SECONDS);
                assertThat(m).as("next stored message of %s", topic).isNotNull();
                counts.merge(Integer.parseInt(new String(m.getValue())), 1, Integer::sum);
            }
        }
        return counts;
    }

    Set<Integer> acked() {
        return Set.copyOf(acked);
    }

    @Override
    public void close() throws Exception {
        stopConsuming = true;
        if (producerThread != null) {
            producerThread.interrupt();
            producerThread.join(5_000);
        }
        if (consumerThread != null) {
            consumerThread.join(5_000);
        }
        if (producer != null) {
            producer.closeAsync();
        }
        if (consumer != null) {
            consumer.closeAsync();
        }
    }
}
