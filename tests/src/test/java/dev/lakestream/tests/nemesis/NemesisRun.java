package dev.lakestream.tests.nemesis;

import static org.awaitility.Awaitility.await;

import dev.lakestream.tests.BrokerCluster;
import dev.lakestream.tests.BrokerMetrics;
import dev.lakestream.tests.BrokerProcess;
import dev.lakestream.tests.KeyedTraffic;
import dev.lakestream.tests.iceberg.IcebergTables;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.data.Record;
import org.apache.pulsar.client.admin.PulsarAdmin;
import org.apache.pulsar.client.admin.PulsarAdminException;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.SubscriptionType;
import org.apache.pulsar.common.policies.data.RetentionPolicies;
import org.awaitility.core.ConditionTimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One nemesis run on a running cluster: fresh topics of every kind under traffic, the schedule of a seed carried out,
 * everything healed, traffic stopped and settled, then the {@link HistoryChecker} over what the clients saw and the
 * topics hold. The topics: with deduplication a Failover and a Key_Shared subscription, without it a Shared and an
 * Exclusive one (all retained), a deduplicated topic without retention that the nemesis trims, a materialized
 * (Iceberg) topic, and a topic written in transactions.
 */
final class NemesisRun {

    private static final Logger LOG = LoggerFactory.getLogger(NemesisRun.class);

    static final String DEDUP = "public/nemesis-dedup";
    static final String PLAIN = "public/nemesis-plain";
    static final String TRIMMED = "public/nemesis-trimmed";
    static final String TABLE = "public/nemesis-table";
    static final String TXN = "public/nemesis-txn";
    static final List<String> NAMESPACES = List.of(DEDUP, PLAIN, TRIMMED, TABLE, TXN);

    /** What a run found. */
    record Result(
            NemesisSchedule schedule,
            FaultLog faults,
            int stuckBundles,
            HistoryChecker.Verdict verdict,
            long acknowledged,
            long committedTxns,
            long abortedTxns,
            long unknownTxns,
            long tableRows,
            double segmentsWritten,
            double seconds) {

        String describe() {
            return schedule.describe() + faults.describe() + "bundles Pulsar left disabled after healing: "
                    + stuckBundles + "\nchecks (acknowledged " + acknowledged
                    + ", transactions committed/aborted/unknown " + committedTxns + "/" + abortedTxns + "/"
                    + unknownTxns + ", table rows " + tableRows + ", segments written by the running brokers "
                    + (long) segmentsWritten + "):\n" + verdict.describe()
                    + "replay: the same seed (" + schedule.seed() + ") and length ("
                    + schedule.length().toSeconds()
                    + " s) give the same schedule";
        }
    }

    private NemesisRun() {}

    /** Creates the namespaces of the runs once per cluster. */
    static void createNamespaces(PulsarAdmin admin) throws PulsarAdminException {
        List<String> existing = admin.namespaces().getNamespaces("public");
        for (String ns : NAMESPACES) {
            if (!existing.contains(ns)) {
                admin.namespaces().createNamespace(ns);
            }
            if (!ns.equals(TRIMMED)) {
                admin.namespaces().setRetention(ns, new RetentionPolicies(-1, -1));
            }
        }
        for (String ns : List.of(DEDUP, TRIMMED, TABLE)) {
            admin.namespaces().setDeduplicationStatus(ns, true);
        }
        // As `pulsar-admin namespaces set-property NS -k lakestream.iceberg -v enabled`.
        admin.namespaces().setProperty(TABLE, "lakestream.iceberg", "enabled");
    }

    /**
     * Runs the schedule of {@code seed} over {@code length} (faults of {@code kinds} only) with {@code rate} keyed
     * messages/s per topic, on topics named after {@code label}; {@code client} must have transactions enabled.
     */
    static Result run(
            BrokerCluster cluster,
            PulsarClient client,
            Catalog catalog,
            String label,
            long seed,
            Duration length,
            Set<FaultKind> kinds,
            int rate)
            throws Exception {
        long started = System.nanoTime();
        NemesisSchedule schedule = NemesisSchedule.generate(seed, length, kinds);
        LOG.info("nemesis run {}: {}", label, schedule.describe());
        List<KeyedWorkload> keyed = List.of(
                workload(client, DEDUP, label + "-failover", SubscriptionType.Failover, true, true),
                workload(client, DEDUP, label + "-keyshared", SubscriptionType.Key_Shared, true, true),
                workload(client, PLAIN, label + "-shared", SubscriptionType.Shared, false, true),
                workload(client, PLAIN, label + "-exclusive", SubscriptionType.Exclusive, false, true),
                workload(client, TRIMMED, label + "-trimmed", SubscriptionType.Exclusive, true, false),
                workload(client, TABLE, label + "-table", SubscriptionType.Failover, true, true));
        String tableTopic = keyed.get(5).traffic().topic();
        TransactionTraffic txn = new TransactionTraffic(client, "persistent://" + TXN + "/" + label + "-txn", seed);
        FaultLog log;
        try {
            for (KeyedWorkload w : keyed) {
                w.traffic().start(rate);
            }
            txn.start();
            for (KeyedWorkload w : keyed) {
                await("50 acknowledgements on " + w.traffic().topic() + " before the faults")
                        .atMost(Duration.ofMinutes(1))
                        .until(() -> w.traffic().ackedCount() >= 50);
            }
            List<String> topics =
                    new ArrayList<>(keyed.stream().map(w -> w.traffic().topic()).toList());
            topics.add(txn.topic());
            // Times in the log count from the schedule's start, as the schedule's offsets do.
            log = new FaultLog(System.nanoTime());
            Nemesis nemesis = new Nemesis(
                    cluster,
                    new Nemesis.Targets(
                            topics, NAMESPACES, keyed.get(4).traffic().topic()),
                    log);
            try {
                nemesis.run(schedule);
            } finally {
                nemesis.healAll();
            }
            List<String> ownedNamespaces = new ArrayList<>(NAMESPACES);
            ownedNamespaces.add("pulsar/system");
            int stuckBundles = new StuckBundles(cluster, ownedNamespaces, log).free();
            long healed = System.nanoTime();
            LOG.info("nemesis run {}: faults over; waiting for every topic to take writes again", label);
            HistoryChecker checker = new HistoryChecker();
            for (KeyedWorkload w : keyed) {
                try {
                    await("publishing to resume on " + w.traffic().topic())
                            .atMost(Duration.ofMinutes(2))
                            .until(() -> w.traffic().firstAckAtOrAfter(healed) > 0);
                } catch (ConditionTimeoutException e) {
                    checker.stalled(w.traffic().topic());
                }
            }
            Thread.sleep(3_000);
            for (KeyedWorkload w : keyed) {
                w.traffic().stopSending();
            }
            txn.stopSending();
            for (KeyedWorkload w : keyed) {
                if (!w.traffic().awaitSettled(120)) {
                    LOG.warn(
                            "nemesis run {}: {} did not settle: {} unanswered, not received {}",
                            label,
                            w.traffic().topic(),
                            w.traffic().unanswered(),
                            w.traffic().notReceived().stream().limit(10).toList());
                }
            }
            long acked = 0;
            KeyedTraffic.Stored tableStored = null;
            for (KeyedWorkload w : keyed) {
                KeyedTraffic.Stored stored =
                        w.retained() ? KeyedTraffic.stored(client, w.traffic().topic()) : null;
                checker.checkKeyed(w, stored, log);
                acked += w.traffic().ackedCount();
                if (w.traffic().topic().equals(tableTopic)) {
                    tableStored = stored;
                }
            }
            checker.checkTransactions(txn, awaitTransactionsStored(txn), awaitTransactionsReceived(txn));
            long storedInTable = total(tableStored.counts());
            Map<Integer, Integer> rows = awaitTable(new IcebergTables(catalog), tableTopic, storedInTable);
            if (total(rows) < storedInTable) {
                // A materializer that stopped committing: what its threads wait on says why.
                dumpThreads(cluster, label + "-table");
            }
            checker.checkTable(tableTopic, tableStored, rows);
            return new Result(
                    schedule,
                    log,
                    stuckBundles,
                    checker.verdict(),
                    acked,
                    txn.count(TransactionTraffic.Outcome.COMMITTED),
                    txn.count(TransactionTraffic.Outcome.ABORTED),
                    txn.count(TransactionTraffic.Outcome.UNKNOWN),
                    total(rows),
                    BrokerMetrics.sumOverRunning(cluster.brokers(), "lakestream_compaction_segments_written_total"),
                    (System.nanoTime() - started) / 1e9);
        } finally {
            for (KeyedWorkload w : keyed) {
                w.traffic().close();
            }
            txn.close();
        }
    }

    private static void dumpThreads(BrokerCluster cluster, String label) {
        for (BrokerProcess b : cluster.brokers()) {
            if (b.isAlive()) {
                try {
                    LOG.warn("nemesis run {}: threads of {} in {}", label, b.name(), b.threadDump(label));
                } catch (IOException e) {
                    LOG.warn("nemesis run {}: no thread dump of {}: {}", label, b.name(), e.toString());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    private static KeyedWorkload workload(
            PulsarClient client, String ns, String name, SubscriptionType type, boolean dedup, boolean retained) {
        return new KeyedWorkload(
                new KeyedTraffic(client, "persistent://" + ns + "/" + name, name).subscriptionType(type),
                dedup,
                retained);
    }

    /**
     * What a reader from the earliest position finds in the transaction topic, once it finds every message of every
     * committed transaction (or after two minutes: the checker then reports what is missing). A committed transaction
     * becomes readable only when every transaction begun before it on the topic has ended (Pulsar's max read
     * position), and one whose client lost the answer ends when its coordinator aborts it at its timeout (one minute):
     * read at once, a topic reloaded after the faults can hold committed messages back that its consumer already had.
     */
    private static Set<String> awaitTransactionsStored(TransactionTraffic txn) {
        Set<String> committed = committedMessages(txn);
        AtomicReference<Set<String>> stored = new AtomicReference<>(Set.of());
        try {
            await("every message of the " + committed.size() / TransactionTraffic.PER_TXN
                            + " committed transactions readable")
                    .atMost(Duration.ofMinutes(2))
                    .pollDelay(Duration.ZERO)
                    .pollInterval(Duration.ofSeconds(5))
                    .until(() -> {
                        stored.set(txn.stored());
                        return stored.get().containsAll(committed);
                    });
        } catch (ConditionTimeoutException e) {
            // The checker reports what is missing.
        }
        return stored.get();
    }

    private static Set<String> committedMessages(TransactionTraffic txn) {
        Set<String> committed = new HashSet<>();
        txn.outcomes().forEach((n, o) -> {
            if (o == TransactionTraffic.Outcome.COMMITTED) {
                for (int i = 0; i < TransactionTraffic.PER_TXN; i++) {
                    committed.add("t" + n + "-" + i);
                }
            }
        });
        return committed;
    }

    /**
     * What the transaction consumer received, once it has every message of every committed transaction (or after 60 s:
     * the checker then reports what is missing). Not a count: transactions of unknown outcome may add messages too.
     */
    private static Set<String> awaitTransactionsReceived(TransactionTraffic txn) {
        Set<String> committed = committedMessages(txn);
        try {
            await("every message of the " + committed.size() / TransactionTraffic.PER_TXN
                            + " committed transactions received")
                    .atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> txn.received().containsAll(committed));
        } catch (ConditionTimeoutException e) {
            // The checker reports what is missing.
        }
        return txn.received();
    }

    /**
     * The table's rows per message number, once it holds {@code want} rows, as many as the topic holds messages (or after 90 s: the
     * checker then reports what is missing).
     */
    private static Map<Integer, Integer> awaitTable(IcebergTables tables, String topic, long want) {
        try {
            return await(want + " rows in the table of " + topic)
                    .atMost(Duration.ofSeconds(90))
                    .pollDelay(Duration.ZERO)
                    .pollInterval(Duration.ofMillis(500))
                    .until(() -> tableCounts(tables.rows(topic)), counts -> total(counts) >= want);
        } catch (ConditionTimeoutException e) {
            // What the table holds now; the checker reports what is missing.
            return tableCounts(tables.rows(topic));
        }
    }

    /** How many messages (or rows) a count per message number adds up to. */
    private static long total(Map<Integer, Integer> counts) {
        return counts.values().stream().mapToLong(Integer::longValue).sum();
    }

    private static Map<Integer, Integer> tableCounts(List<Record> rows) {
        Map<Integer, Integer> counts = new TreeMap<>();
        for (Record r : rows) {
            String v = StandardCharsets.UTF_8
                    .decode(((ByteBuffer) r.getField("value")).duplicate())
                    .toString();
            counts.merge(Integer.parseInt(v), 1, Integer::sum);
        }
        return counts;
    }
}
