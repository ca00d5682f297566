package dev.lakestream.tests.nemesis;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.pulsar.client.api.Consumer;
import org.apache.pulsar.client.api.Message;
import org.apache.pulsar.client.api.MessageId;
import org.apache.pulsar.client.api.Producer;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.Reader;
import org.apache.pulsar.client.api.SubscriptionInitialPosition;
import org.apache.pulsar.client.api.SubscriptionType;
import org.apache.pulsar.client.api.transaction.Transaction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Transactions on one topic while the nemesis runs: each transaction sends {@link #PER_TXN} messages
 * ({@code "t<txn>-<i>"}) and then commits (three in four, chosen by the seed) or aborts. What the client was told is
 * recorded per transaction: committed, aborted, or unknown (a send, the commit or the abort failed or timed out; the
 * coordinator then aborts it on timeout, or it committed and the answer was lost). A consumer receives and
 * acknowledges as it goes; readers see committed messages only.
 */
final class TransactionTraffic implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(TransactionTraffic.class);
    static final int PER_TXN = 3;
    private static final int TIMEOUT_S = 30;

    enum Outcome {
        COMMITTED,
        ABORTED,
        UNKNOWN
    }

    private final PulsarClient client;
    private final String topic;
    private final Random random;
    private final Map<Integer, Outcome> outcomes = new ConcurrentHashMap<>();
    private final Set<String> received = ConcurrentHashMap.newKeySet();
    private volatile boolean stopSending;
    private volatile boolean stopConsuming;
    private Thread producerThread;
    private Thread consumerThread;
    private Producer<byte[]> producer;
    private Consumer<byte[]> consumer;

    TransactionTraffic(PulsarClient client, String topic, long seed) {
        this.client = client;
        this.topic = topic;
        this.random = new Random(seed);
    }

    String topic() {
        return topic;
    }

    TransactionTraffic start() throws Exception {
        consumer = client.newConsumer()
                .topic(topic)
                .subscriptionName("checker")
                .subscriptionType(SubscriptionType.Failover)
                .subscriptionInitialPosition(SubscriptionInitialPosition.Earliest)
                .subscribe();
        // Pulsar takes transactional messages only from producers without a send timeout.
        producer = client.newProducer()
                .topic(topic)
                .sendTimeout(0, TimeUnit.SECONDS)
                .enableBatching(false)
                .create();
        producerThread = Thread.ofPlatform().name("txn-producer").start(this::produce);
        consumerThread = Thread.ofPlatform().name("txn-consumer").start(this::consume);
        return this;
    }

    private void produce() {
        for (int txn = 0; !stopSending; txn++) {
            boolean commit = random.nextInt(4) != 0;
            outcomes.put(txn, run(txn, commit));
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private Outcome run(int n, boolean commit) {
        Transaction txn;
        try {
            txn = client.newTransaction()
                    .withTransactionTimeout(1, TimeUnit.MINUTES)
                    .build()
                    .get(TIMEOUT_S, TimeUnit.SECONDS);
        } catch (Exception e) {
            // No transaction began: nothing of it can become visible.
            return Outcome.ABORTED;
        }
        boolean sent = true;
        try {
            List<CompletableFuture<MessageId>> sends = new ArrayList<>();
            for (int i = 0; i < PER_TXN; i++) {
                sends.add(producer.newMessage(txn)
                        .value(("t" + n + "-" + i).getBytes(StandardCharsets.UTF_8))
                        .sendAsync());
            }
            CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new)).get(TIMEOUT_S, TimeUnit.SECONDS);
        } catch (Exception e) {
            sent = false;
        }
        try {
            if (commit && sent) {
                txn.commit().get(TIMEOUT_S, TimeUnit.SECONDS);
                return Outcome.COMMITTED;
            }
            txn.abort().get(TIMEOUT_S, TimeUnit.SECONDS);
            return Outcome.ABORTED;
        } catch (Exception e) {
            LOG.info(
                    "transaction {} of {}: {} failed: {}", n, topic, commit && sent ? "commit" : "abort", e.toString());
            return Outcome.UNKNOWN;
        }
    }

    private void consume() {
        while (!stopConsuming) {
            try {
                Message<byte[]> m = consumer.receive(200, TimeUnit.MILLISECONDS);
                if (m != null) {
                    received.add(new String(m.getValue(), StandardCharsets.UTF_8));
                    var unused = consumer.acknowledgeAsync(m); // a lost ack only redelivers
                }
            } catch (Exception e) {
                if (!stopConsuming) {
                    LOG.warn("transaction consumer of {} stopped", topic, e);
                }
                return;
            }
        }
    }

    /** Stops starting transactions (the one under way completes); the consumer goes on receiving. */
    void stopSending() throws InterruptedException {
        stopSending = true;
        producerThread.join(TimeUnit.SECONDS.toMillis(3L * TIMEOUT_S + 10));
    }

    Map<Integer, Outcome> outcomes() {
        return Map.copyOf(outcomes);
    }

    long count(Outcome o) {
        return outcomes.values().stream().filter(x -> x == o).count();
    }

    Set<String> received() {
        return Set.copyOf(received);
    }

    /** Every message a reader from the earliest position finds (committed ones only, by Pulsar's rules). */
    Set<String> stored() throws Exception {
        Set<String> out = ConcurrentHashMap.newKeySet();
        try (Reader<byte[]> reader = client.newReader()
                .topic(topic)
                .startMessageId(MessageId.earliest)
                .create()) {
            while (reader.hasMessageAvailable()) {
                Message<byte[]> m = reader.readNext(30, TimeUnit.SECONDS);
                if (m == null) {
                    throw new AssertionError("the reader of " + topic + " got no next message within 30 s although "
                            + "the broker reported more available");
                }
                out.add(new String(m.getValue(), StandardCharsets.UTF_8));
            }
        }
        return out;
    }

    @Override
    public void close() throws Exception {
        stopSending = true;
        stopConsuming = true;
        if (producerThread != null) {
            producerThread.interrupt();
            producerThread.join(5_000);
        }
        if (consumerThread != null) {
            consumerThread.join(5_000);
        }
        if (producer != null) {
            var unused = producer.closeAsync(); // best effort: the run is over
        }
        if (consumer != null) {
            var unused = consumer.closeAsync(); // best effort: the run is over
        }
    }
}
