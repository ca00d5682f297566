package dev.lakestream.tests.bench;

import java.util.BitSet;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Which messages of one run the broker acknowledged to its producers and which the consumers received, by sequence
 * id: each producer numbers its messages 0, 1, 2, ... (the number travels in the payload), so a message acknowledged
 * and never received is counted as lost, and one received twice as a duplicate, whatever else arrived. Counting
 * messages alone would let a duplicate hide a loss, and a shortfall would look like consumers falling behind.
 */
final class DeliveryTracker {

    /** What a run's producers had acknowledged and its consumers received when it ended. */
    record Delivery(long sent, long acknowledged, long received, long duplicates, long lost) {}

    private final BitSet[] acknowledged;
    private final BitSet[] received;
    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong receipts = new AtomicLong();
    private final AtomicLong duplicates = new AtomicLong();

    DeliveryTracker(int producers) {
        acknowledged = new BitSet[producers];
        received = new BitSet[producers];
        for (int p = 0; p < producers; p++) {
            acknowledged[p] = new BitSet();
            received[p] = new BitSet();
        }
    }

    void sent() {
        sent.incrementAndGet();
    }

    void acknowledged(int producer, int sequence) {
        BitSet b = acknowledged[producer];
        synchronized (b) {
            b.set(sequence);
        }
    }

    void received(int producer, int sequence) {
        receipts.incrementAndGet();
        BitSet b = received[producer];
        synchronized (b) {
            if (b.get(sequence)) {
                duplicates.incrementAndGet();
            } else {
                b.set(sequence);
            }
        }
    }

    /** Every receipt so far, duplicates included: whether the consumers still make progress. */
    long receipts() {
        return receipts.get();
    }

    /** Acknowledged messages not (yet) received. */
    long missing() {
        return snapshot().lost();
    }

    Delivery snapshot() {
        long acked = 0;
        long distinct = 0;
        long lost = 0;
        for (int p = 0; p < acknowledged.length; p++) {
            BitSet a;
            BitSet r;
            synchronized (acknowledged[p]) {
                a = (BitSet) acknowledged[p].clone();
            }
            synchronized (received[p]) {
                r = (BitSet) received[p].clone();
            }
            acked += a.cardinality();
            distinct += r.cardinality();
            a.andNot(r);
            lost += a.cardinality();
        }
        return new Delivery(sent.get(), acked, distinct, duplicates.get(), lost);
    }
}
