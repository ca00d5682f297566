package dev.lakestream.tests.nemesis;

import dev.lakestream.tests.KeyedTraffic;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Judges a nemesis run by what the clients were told and what the topics hold afterwards. Each check counts its
 * violations and keeps the first few as examples:
 * <ul>
 *   <li><b>lost</b>: acknowledged to the producer, and not stored (retained topics) or never received;</li>
 *   <li><b>stored twice</b>: with deduplication on, a message a reader finds more than once;</li>
 *   <li><b>key order</b>: with deduplication on and an ordered subscription, a message received for the first time
 *       after a later one of its key;</li>
 *   <li><b>ids not rising</b>: a reader meets a message id not above the one before;</li>
 *   <li><b>reader ended early</b>: a reader from the earliest message got more after {@code hasMessageAvailable()}
 *       said there was none (the broker's last message id was behind what it serves);</li>
 *   <li><b>unanswered</b>: sends never answered (the producer never times sends out);</li>
 *   <li><b>stalled</b>: a topic that took no write within two minutes of the last fault healing;</li>
 *   <li><b>forgotten acks</b>: a message redelivered after the broker confirmed its acknowledgement, with no fault
 *       anywhere from the confirmation to the redelivery (across a crash Pulsar may redeliver: cursor positions are
 *       persisted lazily, with BookKeeper as here);</li>
 *   <li><b>transactions</b>: a committed transaction not whole in the topic or not delivered, an aborted one visible, or
 *       one of unknown outcome partly visible;</li>
 *   <li><b>table</b>: the Iceberg table of the materialized topic not holding each stored message exactly once.</li>
 * </ul>
 */
final class HistoryChecker {

    static final List<String> CHECKS = List.of(
            "lost",
            "stored twice",
            "key order",
            "ids not rising",
            "reader ended early",
            "unanswered",
            "stalled",
            "forgotten acks",
            "transactions",
            "table");
    private static final int EXAMPLES = 10;
    /** After a fault heals, how long a broker's state may still be settling (a restarted broker opens topics). */
    private static final long FAULT_GRACE_NANOS = TimeUnit.SECONDS.toNanos(10);

    /** The counts of every check, with examples of the first violations. */
    record Verdict(Map<String, Long> counts, Map<String, List<String>> examples) {

        boolean passed() {
            return counts.values().stream().allMatch(c -> c == 0);
        }

        String describe() {
            StringBuilder s = new StringBuilder();
            counts.forEach((k, v) -> {
                s.append("  ").append(k).append(": ").append(v);
                if (v > 0) {
                    s.append("; first: ").append(examples.get(k));
                }
                s.append('\n');
            });
            return s.toString();
        }
    }

    private final Map<String, Long> counts = new LinkedHashMap<>();
    private final Map<String, List<String>> examples = new LinkedHashMap<>();

    HistoryChecker() {
        CHECKS.forEach(c -> {
            counts.put(c, 0L);
            examples.put(c, new ArrayList<>());
        });
    }

    private void violation(String check, String example) {
        counts.merge(check, 1L, Long::sum);
        List<String> l = examples.get(check);
        if (l.size() < EXAMPLES) {
            l.add(example);
        }
    }

    /** A topic that did not take writes again after the faults. */
    void stalled(String topic) {
        violation("stalled", shortName(topic));
    }

    /** Checks one keyed topic; {@code stored} is what a reader found in it at the end (null when not retained). */
    void checkKeyed(KeyedWorkload w, KeyedTraffic.Stored stored, FaultLog faults) {
        KeyedTraffic t = w.traffic();
        String topic = shortName(t.topic());
        boolean endNoted = false;
        for (int n : t.acked().stream().sorted().toList()) {
            boolean isStored = stored == null || stored.counts().containsKey(n);
            if (!isStored || !t.wasReceived(n)) {
                String ids = " (acknowledged as " + t.ackedId(n) + ", received as " + t.receivedId(n) + ")";
                violation(
                        "lost",
                        topic + " #" + n + (isStored ? " (stored, never received)" : " (not stored)") + ids
                                + (!isStored && !endNoted ? "; " + stored.end() : ""));
                endNoted |= !isStored;
            }
        }
        if (stored != null) {
            if (w.dedup()) {
                stored.counts().forEach((n, c) -> {
                    if (c > 1) {
                        violation("stored twice", topic + " #" + n + " x" + c);
                    }
                });
            }
            for (int i = 0; i < stored.idsNotRising(); i++) {
                violation("ids not rising", topic);
            }
            if (stored.afterEnd() > 0) {
                violation("reader ended early", topic + ": " + stored.end());
            }
        }
        if (w.ordered()) {
            for (int i = 0; i < t.orderViolations(); i++) {
                violation("key order", topic);
            }
        }
        for (int i = 0; i < t.unanswered(); i++) {
            violation("unanswered", topic);
        }
        if (t.consumerError() != null) {
            violation("lost", topic + ": consumer failed: " + t.consumerError());
        }
        for (long[] r : t.redeliveredAfterConfirm()) {
            if (!faults.anyFaultBetween(r[1], r[2], FAULT_GRACE_NANOS)) {
                violation(
                        "forgotten acks",
                        String.format(
                                java.util.Locale.ROOT,
                                "%s #%d redelivered %d ms after its ack was confirmed (at %.1f s and %.1f s after the"
                                        + " start)",
                                topic,
                                r[0],
                                (r[2] - r[1]) / 1_000_000,
                                faults.secondsAfterStart(r[1]),
                                faults.secondsAfterStart(r[2])));
            }
        }
    }

    /** Checks the transaction topic: {@code stored} is what a reader found in it at the end. */
    void checkTransactions(TransactionTraffic t, Set<String> stored, Set<String> received) {
        String topic = shortName(t.topic());
        t.outcomes().forEach((n, outcome) -> {
            int visible = 0;
            int delivered = 0;
            for (int i = 0; i < TransactionTraffic.PER_TXN; i++) {
                String v = "t" + n + "-" + i;
                visible += stored.contains(v) ? 1 : 0;
                delivered += received.contains(v) ? 1 : 0;
            }
            boolean ok = switch (outcome) {
                case COMMITTED -> visible == TransactionTraffic.PER_TXN && delivered == TransactionTraffic.PER_TXN;
                case ABORTED -> visible == 0 && delivered == 0;
                case UNKNOWN -> visible == 0 || visible == TransactionTraffic.PER_TXN;
            };
            if (!ok) {
                violation(
                        "transactions",
                        topic + " txn " + n + " " + outcome + ": " + visible + " of " + TransactionTraffic.PER_TXN
                                + " stored, " + delivered + " delivered");
            }
        });
    }

    /**
     * Checks the materialized topic's table against the topic: each stored message exactly once
     * ({@code tableCounts}: how often each message number is a row).
     */
    void checkTable(String topic, KeyedTraffic.Stored stored, Map<Integer, Integer> tableCounts) {
        String name = shortName(topic);
        stored.counts().forEach((n, c) -> {
            int rows = tableCounts.getOrDefault(n, 0);
            if (rows != c) {
                violation("table", name + " #" + n + ": stored " + c + "x, " + rows + " rows");
            }
        });
        tableCounts.forEach((n, rows) -> {
            if (!stored.counts().containsKey(n)) {
                violation("table", name + " #" + n + ": " + rows + " rows, not stored");
            }
        });
    }

    Verdict verdict() {
        Map<String, List<String>> ex = new LinkedHashMap<>();
        examples.forEach((k, v) -> ex.put(k, List.copyOf(v)));
        return new Verdict(Collections.unmodifiableMap(new LinkedHashMap<>(counts)), ex);
    }

    private static String shortName(String topic) {
        return topic.substring(topic.lastIndexOf('/') + 1);
    }
}
