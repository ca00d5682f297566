package dev.lakestream.tests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.pulsar.client.api.Consumer;
import org.apache.pulsar.client.api.Message;
import org.apache.pulsar.client.api.MessageId;
import org.apache.pulsar.client.api.MessageIdAdv;
import org.apache.pulsar.client.api.Producer;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.PulsarClientException;
import org.apache.pulsar.client.api.Reader;
import org.apache.pulsar.client.api.SubscriptionInitialPosition;
import org.apache.pulsar.client.api.SubscriptionType;

/**
 * A steady keyed producer and a checking consumer on one topic while a test injects a fault or restarts, unloads or
 * kills brokers, and the bookkeeping to judge the outcome by: which messages the broker acknowledged to the producer,
 * which the consumer received and how often, and what a reader finds stored in the topic afterwards.
 *
 * <p>Message {@code n} has the value {@code n} and the key {@code k<n % KEYS>}, so within a key the numbers rise. The
 * producer sends at a fixed rate until {@link #stopSending()} (or a given count), never timing a send out ({@code sendTimeout 0}): each
 * send is acknowledged or fails with an error the test sees. The consumer counts each message it receives and counts
 * an <em>order violation</em> when a message arrives for the first time after a higher number of the same key.
 */
public final class KeyedTraffic implements AutoCloseable {

    public static final int KEYS = 8;

    private final PulsarClient client;
    private final String topic;
    private final String name;
    private final Map<Integer, Long> ackedAt = new ConcurrentHashMap<>();
    /** The message id each acknowledged send was answered with. */
    private final Map<Integer, MessageId> ackedIds = new ConcurrentHashMap<>();
    /** The message id each message was first received at. */
    private final Map<Integer, MessageId> receivedIds = new ConcurrentHashMap<>();

    private final Map<Integer, Long> sentAt = new ConcurrentHashMap<>();
    private final Map<Integer, String> failed = new ConcurrentHashMap<>();
    /** Sends the broker answered as duplicates (no message id): it found their sequence id already persisted. */
    private final Set<Integer> ackedAsDuplicate = ConcurrentHashMap.newKeySet();

    private final Map<Integer, AtomicInteger> received = new ConcurrentHashMap<>();
    private final int[] highestPerKey = new int[KEYS];
    /** Messages whose acknowledgement by the consumer the broker confirmed (ack receipts). */
    private final Set<Integer> ackConfirmed = ConcurrentHashMap.newKeySet();

    private final AtomicInteger orderViolations = new AtomicInteger();
    private final AtomicInteger sent = new AtomicInteger();
    private final AtomicLong lastAckNanos = new AtomicLong();
    private final ConcurrentLinkedQueue<long[]> latencies = new ConcurrentLinkedQueue<>();
    private final AtomicReference<Throwable> consumerError = new AtomicReference<>();
    /** When (nanos) the broker confirmed the consumer's acknowledgement of each message. */
    private final Map<Integer, Long> confirmedAt = new ConcurrentHashMap<>();
    /** Deliveries of a message after its acknowledgement was confirmed: {message, confirmed at, received at}. */
    private final ConcurrentLinkedQueue<long[]> redeliveredAfterConfirm = new ConcurrentLinkedQueue<>();

    private SubscriptionType subscriptionType = SubscriptionType.Failover;
    private volatile boolean stopSending;
    private volatile boolean stopConsuming;
    private Thread producerThread;
    private Thread consumerThread;
    private Producer<byte[]> producer;
    private Consumer<byte[]> consumer;

    public KeyedTraffic(PulsarClient client, String topic, String name) {
        this.client = client;
        this.topic = topic;
        this.name = name;
        java.util.Arrays.fill(highestPerKey, -1);
    }

    public String topic() {
        return topic;
    }

    /** The checking consumer's subscription type (before {@link #start(int)}; Failover unless set). */
    public KeyedTraffic subscriptionType(SubscriptionType type) {
        this.subscriptionType = type;
        return this;
    }

    public SubscriptionType subscriptionType() {
        return subscriptionType;
    }

    /** Subscribes, then sends {@code perSecond} messages a second in the background, consuming as they come. */
    public KeyedTraffic start(int perSecond) throws PulsarClientException {
        return start(Integer.MAX_VALUE, perSecond);
    }

    /** As {@link #start(int)}, sending {@code count} messages in all. */
    public KeyedTraffic start(int count, int perSecond) throws PulsarClientException {
        // Ack receipts: the broker confirms each acknowledgement, so a test knows which ones it holds.
        consumer = client.newConsumer()
                .topic(topic)
                .subscriptionName("checker")
                .subscriptionType(subscriptionType)
                .isAckReceiptEnabled(true)
                .subscriptionInitialPosition(SubscriptionInitialPosition.Earliest)
                .subscribe();
        producer = client.newProducer()
                .topic(topic)
                .producerName(name)
                .sendTimeout(0, TimeUnit.SECONDS)
                .blockIfQueueFull(true)
                .maxPendingMessages(2000)
                .enableBatching(true)
                .batchingMaxPublishDelay(2, TimeUnit.MILLISECONDS)
                .create();
        long intervalNanos = TimeUnit.SECONDS.toNanos(1) / perSecond;
        producerThread = Thread.ofPlatform().name("keyed-producer-" + name).start(() -> {
            long next = System.nanoTime();
            for (int i = 0; i < count && !stopSending; i++) {
                int n = i;
                long t0 = System.nanoTime();
                sentAt.put(n, t0);
                // the callback records a failed send
                var unused = producer.newMessage()
                        .key("k" + (n % KEYS))
                        .value(Integer.toString(n).getBytes(StandardCharsets.UTF_8))
                        .sendAsync()
                        .whenComplete((id, e) -> {
                            long now = System.nanoTime();
                            if (e == null) {
                                ackedAt.put(n, now);
                                ackedIds.put(n, id);
                                if (id instanceof MessageIdAdv adv
                                        && adv.getLedgerId() == -1
                                        && adv.getEntryId() == -1) {
                                    ackedAsDuplicate.add(n);
                                }
                                lastAckNanos.accumulateAndGet(now, Math::max);
                                latencies.add(new long[] {t0, now - t0});
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
        consumerThread = Thread.ofPlatform().name("keyed-consumer-" + name).start(this::consume);
        return this;
    }

    /** Per batched entry ({@code partition:ledger:entry}), the messages of it acknowledged so far. */
    private final Map<String, Set<Integer>> batchAcks = new ConcurrentHashMap<>();

    /**
     * Notes when the broker holds the acknowledgement of message {@code n}. Pulsar's client completes the
     * acknowledgement of a message in a batch at once, without telling the broker, until every message of the batch is
     * acknowledged (batch-index acknowledgement is off): only the last one's receipt comes from the broker, and it
     * holds them all from then on. A redelivery of a batch not yet wholly acknowledged is no forgotten acknowledgement.
     */
    private void brokerHolds(int n, MessageId id) {
        long now = System.nanoTime();
        if (!(id instanceof MessageIdAdv adv) || adv.getBatchSize() <= 1) {
            confirmedAt.putIfAbsent(n, now);
            return;
        }
        String entry = adv.getPartitionIndex() + ":" + adv.getLedgerId() + ":" + adv.getEntryId();
        Set<Integer> acked = batchAcks.computeIfAbsent(entry, k -> ConcurrentHashMap.newKeySet());
        acked.add(n);
        if (acked.size() >= adv.getBatchSize() && batchAcks.remove(entry) != null) {
            acked.forEach(m -> confirmedAt.putIfAbsent(m, now));
        }
    }

    private void consume() {
        while (!stopConsuming) {
            try {
                Message<byte[]> m = consumer.receive(200, TimeUnit.MILLISECONDS);
                if (m == null) {
                    continue;
                }
                String value = new String(m.getValue(), StandardCharsets.UTF_8);
                if (value.isEmpty() || !Character.isDigit(value.charAt(0))) {
                    // another producer's message (a scenario's side producer): not counted, so a failed ack changes
                    // nothing
                    var unused = consumer.acknowledgeAsync(m);
                    continue;
                }
                int n = Integer.parseInt(value);
                receivedIds.putIfAbsent(n, m.getMessageId());
                int times =
                        received.computeIfAbsent(n, k -> new AtomicInteger()).incrementAndGet();
                Long confirmed = confirmedAt.get(n);
                if (confirmed != null) {
                    redeliveredAfterConfirm.add(new long[] {n, confirmed, System.nanoTime()});
                }
                int key = n % KEYS;
                if (times == 1 && n < highestPerKey[key]) {
                    orderViolations.incrementAndGet();
                }
                highestPerKey[key] = Math.max(highestPerKey[key], n);
                // a failed ack is simply not confirmed: ackConfirmed is what the checks count
                MessageId id = m.getMessageId();
                var unused = consumer.acknowledgeAsync(m).thenRun(() -> {
                    brokerHolds(n, id);
                    ackConfirmed.add(n);
                });
            } catch (PulsarClientException e) {
                if (!stopConsuming && !(e instanceof PulsarClientException.AlreadyClosedException)) {
                    consumerError.compareAndSet(null, e);
                }
                return;
            }
        }
    }

    public int sent() {
        return sent.get();
    }

    public int ackedCount() {
        return ackedAt.size();
    }

    /** Nanos of the latest acknowledgement so far, or 0. */
    public long lastAckNanos() {
        return lastAckNanos.get();
    }

    /** The first acknowledgement at or after {@code nanos}, or -1 if none yet. */
    public long firstAckAtOrAfter(long nanos) {
        return ackedAt.values().stream()
                .filter(t -> t >= nanos)
                .min(Long::compare)
                .orElse(-1L);
    }

    /**
     * How many messages were acknowledged with a message id (stored now, not answered as duplicates of an earlier
     * send) in [fromNanos, toNanos).
     */
    public long storedInWindow(long fromNanos, long toNanos) {
        return ackedAt.entrySet().stream()
                .filter(e -> sentAt.getOrDefault(e.getKey(), Long.MIN_VALUE) >= fromNanos && e.getValue() < toNanos)
                .filter(e -> !ackedAsDuplicate.contains(e.getKey()))
                .count();
    }

    /** The id the broker answered message {@code n}'s send with, or null. */
    public MessageId ackedId(int n) {
        return ackedIds.get(n);
    }

    /** The id message {@code n} was first received at, or null. */
    public MessageId receivedId(int n) {
        return receivedIds.get(n);
    }

    public boolean wasReceived(int n) {
        return received.containsKey(n);
    }

    /** Stops issuing sends; what was issued still completes. */
    public void stopSending() throws InterruptedException {
        stopSending = true;
        producerThread.join(10_000);
    }

    /**
     * Waits (at most {@code seconds}) until every send issued was answered and the consumer received every
     * acknowledged message; returns whether it got there. Not Awaitility: callers go on to report what is missing, so
     * a timeout is an answer here, not a failure.
     */
    public boolean awaitSettled(int seconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < deadline) {
            if (!producerThread.isAlive()
                    && ackedAt.size() + failed.size() >= sent.get()
                    && notReceived().isEmpty()) {
                return true;
            }
            Thread.sleep(100);
        }
        return false;
    }

    /**
     * Waits (at most {@code seconds}) until the producer has issued its sends, every one was answered and the consumer
     * received every acknowledged one; fails naming what is missing.
     */
    public void assertSettled(int seconds) throws InterruptedException {
        boolean settled = awaitSettled(seconds);
        assertThat(unanswered())
                .as("sends never answered (acked %d, failed %d)", ackedAt.size(), failed.size())
                .isZero();
        assertThat(notReceived())
                .as("acknowledged to the producer but never received by the consumer")
                .isEmpty();
        assertThat(settled).as("producer still sending").isTrue();
        assertThat(consumerError.get()).as("consumer error").isNull();
    }

    /** Messages whose acknowledgement the broker confirmed so far. */
    public Set<Integer> ackConfirmed() {
        return Set.copyOf(ackConfirmed);
    }

    /**
     * Deliveries of a message after the broker had confirmed its acknowledgement, as {message, confirmed at, received
     * at} (nanos): a subscription that forgot an acknowledgement.
     */
    public List<long[]> redeliveredAfterConfirm() {
        return List.copyOf(redeliveredAfterConfirm);
    }

    /** Of {@code messages}, those the consumer received more than once. */
    public List<Integer> receivedTwiceAmong(Set<Integer> messages) {
        return messages.stream()
                .filter(n -> received.get(n) != null && received.get(n).get() > 1)
                .sorted()
                .toList();
    }

    /** Acknowledged messages the consumer never received, in order. */
    public List<Integer> notReceived() {
        List<Integer> l = new ArrayList<>();
        for (int n : ackedAt.keySet()) {
            if (!received.containsKey(n)) {
                l.add(n);
            }
        }
        l.sort(null);
        return l;
    }

    public int unanswered() {
        return sent.get() - ackedAt.size() - failed.size();
    }

    public Map<Integer, String> failed() {
        return new TreeMap<>(failed);
    }

    /** Acknowledged sends the broker answered as duplicates of an earlier persisted send. */
    public Set<Integer> ackedAsDuplicate() {
        return Set.copyOf(ackedAsDuplicate);
    }

    public int orderViolations() {
        return orderViolations.get();
    }

    /** Messages the consumer received more than once (redeliveries, e.g. after a consumer moved broker). */
    public long redelivered() {
        return received.values().stream().filter(c -> c.get() > 1).count();
    }

    public Throwable consumerError() {
        return consumerError.get();
    }

    /** The {@code q} quantile (0..1) of send-to-acknowledgement latency in ms of sends issued in [from, to). */
    public double latencyMs(double q, long fromNanos, long toNanos) {
        List<Long> l = new ArrayList<>();
        for (long[] s : latencies) {
            if (s[0] >= fromNanos && s[0] < toNanos) {
                l.add(s[1]);
            }
        }
        if (l.isEmpty()) {
            return Double.NaN;
        }
        l.sort(null);
        return l.get((int) Math.min(l.size() - 1, Math.ceil(q * l.size()) - 1)) / 1e6;
    }

    public Set<Integer> acked() {
        return Set.copyOf(ackedAt.keySet());
    }

    /** The topic read whole from the start: how often each message is stored, and whether ids rise strictly. */
    public static Stored stored(PulsarClient client, String topic) throws Exception {
        return stored(client, topic, Integer::parseInt);
    }

    /** As {@link #stored(PulsarClient, String)}, each value mapped to a number ({@code null}: not counted). */
    public static Stored stored(PulsarClient client, String topic, java.util.function.Function<String, Integer> number)
            throws Exception {
        Map<Integer, Integer> counts = new TreeMap<>();
        int idsOutOfOrder = 0;
        MessageId previous = null;
        String end;
        int beyond;
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
                if (previous != null && m.getMessageId().compareTo(previous) <= 0) {
                    idsOutOfOrder++;
                }
                previous = m.getMessageId();
                Integer n = number.apply(new String(m.getValue(), StandardCharsets.UTF_8));
                if (n != null) {
                    counts.merge(n, 1, Integer::sum);
                }
            }
            // What the broker called the end, and whether it really was: a reader that stops early hides messages.
            end = "the reader stopped after " + previous + "; the broker's last message id "
                    + reader.getLastMessageIds();
            beyond = 0;
            Message<byte[]> m;
            while ((m = reader.readNext(1, TimeUnit.SECONDS)) != null) {
                if (beyond++ == 0) {
                    end += "; yet more came, first " + m.getMessageId();
                }
            }
            if (beyond > 0) {
                end += " (" + beyond + " in all)";
            }
        }
        return new Stored(counts, idsOutOfOrder, end, beyond);
    }

    /**
     * What a reader found in a topic.
     *
     * @param end where the reader stopped, and the broker's last message id then
     * @param afterEnd messages the reader still got after {@code hasMessageAvailable()} said there were none
     */
    public record Stored(Map<Integer, Integer> counts, int idsNotRising, String end, int afterEnd) {

        public long storedTwice() {
            return counts.values().stream().filter(c -> c > 1).count();
        }
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
            var unused = producer.closeAsync(); // best effort: the traffic is over, nothing left to check
        }
        if (consumer != null) {
            var unused = consumer.closeAsync(); // best effort: the traffic is over, nothing left to check
        }
    }
}
