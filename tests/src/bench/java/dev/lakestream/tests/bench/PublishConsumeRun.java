package dev.lakestream.tests.bench;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.apache.pulsar.client.api.Consumer;
import org.apache.pulsar.client.api.Message;
import org.apache.pulsar.client.api.Producer;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.SubscriptionInitialPosition;
import org.apache.pulsar.client.api.SubscriptionType;

/**
 * One run of the publish/consume workload on one (partitioned) topic: {@code producers} producers, each on its own
 * thread, send {@code messageBytes}-byte messages (the send time, {@link System#nanoTime()}, in the first 8 bytes)
 * either as fast as the client lets them ({@code rate = 0}: closed loop, at most {@value #MAX_PENDING} pending per
 * producer) or at a fixed total rate; {@code consumers} consumers of a new failover subscription (the partitions
 * spread over them) receive and acknowledge them, each on its own thread. After the warm-up, the measured window counts the publishes acknowledged in it (throughput) and records, for
 * messages sent in it, the publish latency (send call to the broker's acknowledgement) and the end-to-end latency
 * (send call to receipt by the consumer; producer and consumer share the JVM's clock).
 *
 * <p>Every message carries its producer's index and sequence number (bytes 8-15), so the run also counts which
 * acknowledged messages were received ({@link DeliveryTracker}): after the producers stop, the consumers drain until
 * every acknowledged message has arrived, or nothing arrived for {@link #DRAIN_QUIET_SECONDS}, or
 * {@link #DRAIN_MAX_SECONDS} passed; what is still missing then is reported as lost by the caller.
 */
final class PublishConsumeRun {

    /**
     * Pending messages per producer. Large enough that the closed loop is not bound by the window: at most
     * {@code producers * MAX_PENDING / latency} messages per second get through (Little's law), and Lakestream's
     * publish latency is ~100 ms where BookKeeper's is a few ms.
     */
    static final int MAX_PENDING = 10_000;

    /** The drain ends this long after the last receipt: a consumer that caught up gets nothing more. */
    static final int DRAIN_QUIET_SECONDS = 30;
    /** ... and at the latest this long after the producers stopped, so that a run always ends. */
    static final int DRAIN_MAX_SECONDS = 120;

    /**
     * Producer batching. {@link #CLIENT_DEFAULT} is the Pulsar client's own (128 KiB, 1,000 messages, 1 ms);
     * {@link #LARGE} seals a batch at 1 MiB: the message limit is far above what 1 MiB holds, and the delay long
     * enough that a producer fills the batch before it is due, so the bytes bind.
     */
    record Batching(int maxBytes, int maxMessages, int maxDelayMillis) {
        static final Batching CLIENT_DEFAULT = new Batching(128 * 1024, 1000, 1);
        static final Batching LARGE = new Batching(1 << 20, 100_000, 100);
    }

    record Result(
            double messagesPerSecond,
            double mibPerSecond,
            Latencies publish,
            Latencies endToEnd,
            DeliveryTracker.Delivery delivery) {}

    private PublishConsumeRun() {}

    static Result run(
            PulsarClient client,
            String topic,
            int producers,
            int consumers,
            int messageBytes,
            double rate,
            Batching batching,
            long warmupNanos,
            long measureNanos)
            throws Exception {
        Latencies publish = new Latencies();
        Latencies e2e = new Latencies();
        AtomicLong ackedInWindow = new AtomicLong();
        DeliveryTracker delivery = new DeliveryTracker(producers);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicBoolean consumerStop = new AtomicBoolean();
        List<Throwable> failures = new ArrayList<>();

        List<Consumer<byte[]>> cs = new ArrayList<>();
        for (int i = 0; i < consumers; i++) {
            cs.add(client.newConsumer()
                    .topic(topic)
                    .subscriptionName("bench")
                    .subscriptionType(SubscriptionType.Failover)
                    .receiverQueueSize(1000)
                    .subscriptionInitialPosition(SubscriptionInitialPosition.Earliest)
                    .subscribe());
        }
        List<Producer<byte[]>> ps = new ArrayList<>();
        for (int i = 0; i < producers; i++) {
            ps.add(client.newProducer()
                    .topic(topic)
                    .maxPendingMessages(MAX_PENDING)
                    .blockIfQueueFull(true)
                    .batchingMaxBytes(batching.maxBytes())
                    .batchingMaxMessages(batching.maxMessages())
                    .batchingMaxPublishDelay(batching.maxDelayMillis(), TimeUnit.MILLISECONDS)
                    .sendTimeout(120, TimeUnit.SECONDS)
                    .create());
        }
        long start = System.nanoTime();
        long t0 = start + warmupNanos;
        long t1 = t0 + measureNanos;

        List<Thread> consumerThreads = new ArrayList<>();
        for (Consumer<byte[]> consumer : cs) {
            Thread consumerThread = new Thread(
                    () -> {
                        try {
                            while (!consumerStop.get()) {
                                Message<byte[]> m = consumer.receive(100, TimeUnit.MILLISECONDS);
                                if (m == null) {
                                    continue;
                                }
                                long now = System.nanoTime();
                                ByteBuffer payload = ByteBuffer.wrap(m.getValue());
                                long sentAt = payload.getLong(0);
                                if (sentAt >= t0 && sentAt < t1) {
                                    e2e.record(now - sentAt);
                                }
                                delivery.received(payload.getInt(8), payload.getInt(12));
                                // a failed ack only means a redelivery; receiving is what is measured
                                var unused = consumer.acknowledgeAsync(m);
                            }
                        } catch (Throwable t) {
                            synchronized (failures) {
                                failures.add(t);
                            }
                        }
                    },
                    "bench-consumer");
            consumerThread.start();
            consumerThreads.add(consumerThread);
        }

        List<Thread> producerThreads = new ArrayList<>();
        for (int i = 0; i < ps.size(); i++) {
            Producer<byte[]> p = ps.get(i);
            int producer = i;
            Thread thread = new Thread(
                    () -> {
                        long intervalNanos = rate > 0 ? (long) (1e9 * producers / rate) : 0;
                        long next = start;
                        int sequence = 0;
                        try {
                            while (!stop.get() && System.nanoTime() < t1) {
                                if (intervalNanos > 0) {
                                    long wait = next - System.nanoTime();
                                    if (wait > 0) {
                                        LockSupport.parkNanos(wait);
                                    }
                                    next += intervalNanos;
                                }
                                byte[] payload = new byte[messageBytes];
                                long sentAt = System.nanoTime();
                                int seq = sequence++;
                                ByteBuffer.wrap(payload)
                                        .putLong(0, sentAt)
                                        .putInt(8, producer)
                                        .putInt(12, seq);
                                delivery.sent();
                                // the callback records a failed send
                                var unused = p.sendAsync(payload).whenComplete((id, e) -> {
                                    long now = System.nanoTime();
                                    if (e != null) {
                                        synchronized (failures) {
                                            failures.add(e);
                                        }
                                        return;
                                    }
                                    delivery.acknowledged(producer, seq);
                                    if (now >= t0 && now < t1) {
                                        ackedInWindow.incrementAndGet();
                                    }
                                    if (sentAt >= t0 && sentAt < t1) {
                                        publish.record(now - sentAt);
                                    }
                                });
                            }
                        } catch (Throwable t) {
                            synchronized (failures) {
                                failures.add(t);
                            }
                        }
                    },
                    "bench-producer");
            thread.start();
            producerThreads.add(thread);
        }
        for (Thread t : producerThreads) {
            t.join();
        }
        for (Producer<byte[]> p : ps) {
            p.flush();
        }
        drain(delivery, failures);
        consumerStop.set(true);
        for (Thread t : consumerThreads) {
            t.join();
        }
        for (Producer<byte[]> p : ps) {
            p.close();
        }
        for (Consumer<byte[]> c : cs) {
            c.close();
        }
        synchronized (failures) {
            if (!failures.isEmpty()) {
                Exception e = new Exception("the run on " + topic + " failed: " + failures.get(0), failures.get(0));
                failures.stream().skip(1).limit(5).forEach(e::addSuppressed);
                throw e;
            }
        }
        double seconds = measureNanos / 1e9;
        double mps = ackedInWindow.get() / seconds;
        return new Result(mps, mps * messageBytes / (1024.0 * 1024.0), publish, e2e, delivery.snapshot());
    }

    /** Waits until every acknowledged message was received, the consumers go quiet, or the deadline passes. */
    private static void drain(DeliveryTracker delivery, List<Throwable> failures) throws InterruptedException {
        long now = System.nanoTime();
        long deadline = now + TimeUnit.SECONDS.toNanos(DRAIN_MAX_SECONDS);
        long lastReceipts = delivery.receipts();
        long lastProgress = now;
        while (delivery.missing() > 0
                && now < deadline
                && now - lastProgress < TimeUnit.SECONDS.toNanos(DRAIN_QUIET_SECONDS)) {
            synchronized (failures) {
                if (!failures.isEmpty()) {
                    return;
                }
            }
            Thread.sleep(100);
            now = System.nanoTime();
            long receipts = delivery.receipts();
            if (receipts != lastReceipts) {
                lastReceipts = receipts;
                lastProgress = now;
            }
        }
    }
}
