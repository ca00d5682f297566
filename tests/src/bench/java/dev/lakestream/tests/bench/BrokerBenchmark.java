package dev.lakestream.tests.bench;

import dev.lakestream.testkit.BenchCommandLine;
import dev.lakestream.testkit.BenchmarksDoc;
import dev.lakestream.tests.BookKeeperEnsembleExtension;
import dev.lakestream.tests.PulsarBrokerExtension;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import org.apache.pulsar.client.admin.PulsarAdmin;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.SizeUnit;
import org.apache.pulsar.common.policies.data.PersistencePolicies;
import org.apache.pulsar.common.policies.data.TenantInfo;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The broker benchmark ({@code bin/bench-broker}): ONE Pulsar broker in hybrid mode ({@code conf/broker-hybrid.conf},
 * through the tests' {@link PulsarBrokerExtension#hybrid}: an in-process ZooKeeper and bookie, S3Proxy and Oxia as
 * processes)
 * and the same publish/consume workload through a BookKeeper namespace and a Lakestream namespace, side by side in
 * the same run, alternating which goes first. Writes the "## Broker: Lakestream vs BookKeeper" section of
 * docs/benchmarks.md. Every publish/consume run counts what was acknowledged against what was received
 * ({@link DeliveryCheck}): a run that lost an acknowledged message fails the benchmark (exit status 1, after the
 * report is printed; the doc is not written).
 *
 * <p>{@code BrokerBenchmark [--doc FILE | --no-doc] [--command TEXT] [--quick] [--reps N] [--producers N]
 * [--consumers N] [--rate MSG_PER_S] [--seconds S]}
 */
public final class BrokerBenchmark {

    static final String HEADING = "## Broker: Lakestream vs BookKeeper";
    static final int PARTITIONS = 16;
    static final int MESSAGE_BYTES = 1024;
    static final String[] STORAGES = {"bookkeeper", "lakestream"};
    /** Fixed rates at which Lakestream's PUTs per second are counted, besides the main fixed rate. */
    static final double[] LOW_RATES = {10, 100};

    /** One fixed-rate Lakestream run and the PUTs and index commits it made. */
    record RateRun(double rate, PublishConsumeRun.Result result, LakestreamCalls.Window calls) {}

    /** One max-rate run with 1 MiB batches, and the mean entry the broker stored (from its internal stats). */
    record LargeBatchRun(PublishConsumeRun.Result result, double meanEntryKiB) {}

    private BrokerBenchmark() {}

    /** The command line (the class comment's usage). */
    @Command(name = "BrokerBenchmark", showDefaultValues = true)
    static final class Options {
        @Mixin
        DocOptions out = new DocOptions("bin/bench-broker");

        /** One repetition of 5 s runs (after 2 s of warm-up), whatever --reps and --seconds say. */
        @Option(names = "--quick")
        boolean quick;

        @Option(names = "--reps", paramLabel = "N")
        int reps = 3;

        @Option(names = "--producers", paramLabel = "N")
        int producers = 4;

        @Option(names = "--consumers", paramLabel = "N")
        int consumers = 4;

        @Option(names = "--rate", paramLabel = "MSG_PER_S")
        double rate = 2000;

        @Option(names = "--seconds", paramLabel = "S")
        int seconds = 20;
    }

    public static void main(String[] args) throws Exception {
        Options options = BenchCommandLine.parseOrExit(new Options(), args);
        Path doc = options.out.doc;
        String command = options.out.command;
        boolean quick = options.quick;
        int reps = options.reps;
        int producers = options.producers;
        int consumers = options.consumers;
        double rate = options.rate;
        int seconds = options.seconds;
        if (quick) {
            reps = 1;
            seconds = 5;
        }
        long warmup = TimeUnit.SECONDS.toNanos(quick ? 2 : 5);
        long measure = TimeUnit.SECONDS.toNanos(seconds);

        long began = System.nanoTime();
        String loadBefore = loadAverage();
        Map<String, List<PublishConsumeRun.Result>> max = new LinkedHashMap<>();
        Map<String, List<PublishConsumeRun.Result>> fixed = new LinkedHashMap<>();
        Map<String, List<SyncProducerRun.Result>> sync = new LinkedHashMap<>();
        List<LakestreamCalls.Window> fixedCalls = new ArrayList<>();
        List<RateRun> lowRates = new ArrayList<>();
        Map<String, List<LargeBatchRun>> large = new LinkedHashMap<>();
        DeliveryCheck delivery = new DeliveryCheck();
        for (String s : STORAGES) {
            large.put(s, new ArrayList<>());
            max.put(s, new ArrayList<>());
            fixed.put(s, new ArrayList<>());
            sync.put(s, new ArrayList<>());
        }
        // Bookie settings for a sustained load (BookKeeper's defaults otherwise): LocalBookkeeperEnsemble's development
        // settings have a 2 MiB write cache, which stalls adds for seconds at tens of MiB/s. No fsync, as S3Proxy
        // and the test kit's Oxia do not fsync either.
        try (PulsarBrokerExtension broker = PulsarBrokerExtension.hybrid(new BookKeeperEnsembleExtension(1)
                .bookieSetting("dbStorage_writeCacheMaxSizeMb", 256)
                .bookieSetting("dbStorage_readAheadCacheMaxSizeMb", 64)
                .bookieSetting("journalSyncData", false))) {
            broker.start();
            LakestreamCalls calls = new LakestreamCalls(broker);
            PulsarAdmin admin = broker.admin();
            admin.tenants()
                    .createTenant(
                            "bench",
                            TenantInfo.builder()
                                    .allowedClusters(Set.of(
                                            broker.pulsar().getConfiguration().getClusterName()))
                                    .build());
            for (String s : STORAGES) {
                admin.namespaces().createNamespace("bench/" + s);
                admin.namespaces().setPersistence("bench/" + s, new PersistencePolicies(1, 1, 1, 0, s));
            }
            // Room for every producer's pending messages (the client's default memory limit is 64 MiB).
            PulsarClient client = PulsarClient.builder()
                    .serviceUrl(broker.brokerServiceUrl())
                    .memoryLimit(1, SizeUnit.GIGA_BYTES)
                    .operationTimeout(60, TimeUnit.SECONDS)
                    .build();
            System.out.printf(
                    Locale.ROOT,
                    "[bench-broker] broker up; warm-up runs (%d s each)%n",
                    TimeUnit.NANOSECONDS.toSeconds(warmup + measure / 2));
            for (String s : STORAGES) {
                delivery.add(
                        s,
                        "warm-up",
                        PublishConsumeRun.run(
                                client,
                                topic(admin, s, "warm"),
                                producers,
                                consumers,
                                MESSAGE_BYTES,
                                0,
                                PublishConsumeRun.Batching.CLIENT_DEFAULT,
                                warmup,
                                measure / 2));
            }
            try (client) {
                for (int rep = 1; rep <= reps; rep++) {
                    // Alternate which storage goes first, so that drift on a shared machine does not favour one.
                    String[] order = rep % 2 == 1 ? STORAGES : new String[] {STORAGES[1], STORAGES[0]};
                    for (String s : order) {
                        PublishConsumeRun.Result m = PublishConsumeRun.run(
                                client,
                                topic(admin, s, "max-" + rep),
                                producers,
                                consumers,
                                MESSAGE_BYTES,
                                0,
                                PublishConsumeRun.Batching.CLIENT_DEFAULT,
                                warmup,
                                measure);
                        max.get(s).add(m);
                        delivery.add(s, "max-" + rep, m);
                        System.out.printf(
                                Locale.ROOT,
                                "[bench-broker] run %d %-10s max rate: %,.0f msg/s (%.1f MiB/s),"
                                        + " publish p50 %.1f ms p99 %.1f ms, e2e p50 %.1f ms p99 %.1f ms; %s%n",
                                rep,
                                s,
                                m.messagesPerSecond(),
                                m.mibPerSecond(),
                                m.publish().percentileMillis(0.5),
                                m.publish().percentileMillis(0.99),
                                m.endToEnd().percentileMillis(0.5),
                                m.endToEnd().percentileMillis(0.99),
                                counts(m));
                        LakestreamCalls.Mark mark = calls.mark();
                        PublishConsumeRun.Result f = PublishConsumeRun.run(
                                client,
                                topic(admin, s, "fixed-" + rep),
                                producers,
                                consumers,
                                MESSAGE_BYTES,
                                rate,
                                PublishConsumeRun.Batching.CLIENT_DEFAULT,
                                warmup,
                                measure);
                        fixed.get(s).add(f);
                        delivery.add(s, "fixed-" + rep, f);
                        if (s.equals("lakestream")) {
                            fixedCalls.add(calls.since(mark));
                        }
                        System.out.printf(
                                Locale.ROOT,
                                "[bench-broker] run %d %-10s at %,.0f msg/s: %,.0f msg/s acked,"
                                        + " publish p50 %.1f ms p99 %.1f ms, e2e p50 %.1f ms p99 %.1f ms; %s%n",
                                rep,
                                s,
                                rate,
                                f.messagesPerSecond(),
                                f.publish().percentileMillis(0.5),
                                f.publish().percentileMillis(0.99),
                                f.endToEnd().percentileMillis(0.5),
                                f.endToEnd().percentileMillis(0.99),
                                counts(f));
                    }
                }
                // Max rate with 1 MiB producer batches: entries of about 1 MiB, where a reader's byte budget
                // refuses entries part-way through an index record.
                for (int rep = 1; rep <= reps; rep++) {
                    String[] order = rep % 2 == 1 ? STORAGES : new String[] {STORAGES[1], STORAGES[0]};
                    for (String s : order) {
                        String t = topic(admin, s, "large-" + rep);
                        PublishConsumeRun.Result m = PublishConsumeRun.run(
                                client,
                                t,
                                producers,
                                consumers,
                                MESSAGE_BYTES,
                                0,
                                PublishConsumeRun.Batching.LARGE,
                                warmup,
                                measure);
                        LargeBatchRun run = new LargeBatchRun(m, meanEntryKiB(admin, t, m));
                        large.get(s).add(run);
                        delivery.add(s, "large-" + rep, m);
                        System.out.printf(
                                Locale.ROOT,
                                "[bench-broker] run %d %-10s max rate, 1 MiB batches: %,.0f msg/s (%.1f MiB/s),"
                                        + " publish p50 %.1f ms p99 %.1f ms, mean entry %.0f KiB; %s%n",
                                rep,
                                s,
                                m.messagesPerSecond(),
                                m.mibPerSecond(),
                                m.publish().percentileMillis(0.5),
                                m.publish().percentileMillis(0.99),
                                run.meanEntryKiB(),
                                counts(m));
                    }
                }
                // One message in flight: the synchronous producer.
                for (int rep = 1; rep <= reps; rep++) {
                    String[] order = rep % 2 == 1 ? STORAGES : new String[] {STORAGES[1], STORAGES[0]};
                    for (String s : order) {
                        String t = "persistent://bench/" + s + "/sync-" + rep;
                        admin.topics().createNonPartitionedTopic(t);
                        SyncProducerRun.Result r = SyncProducerRun.run(
                                client, t, MESSAGE_BYTES, warmup, measure, s.equals("lakestream") ? calls : null);
                        sync.get(s).add(r);
                        System.out.printf(
                                Locale.ROOT,
                                "[bench-broker] run %d %-10s synchronous producer: %,.1f msg/s,"
                                        + " publish p50 %.2f ms p99 %.2f ms%s%n",
                                rep,
                                s,
                                r.messagesPerSecond(),
                                r.publish().percentileMillis(0.5),
                                r.publish().percentileMillis(0.99),
                                r.calls() == null
                                        ? ""
                                        : String.format(
                                                Locale.ROOT,
                                                "; PUT p50 %.2f ms, commit p50 %.2f ms," + " %.1f PUTs/s",
                                                r.calls().putP50(),
                                                r.calls().commitP50(),
                                                r.calls().putsPerSecond()));
                    }
                }
                // What lower latency costs: Lakestream's PUTs per second at lower fixed rates (2,000/s is measured
                // above).
                for (double low : LOW_RATES) {
                    LakestreamCalls.Mark mark = calls.mark();
                    PublishConsumeRun.Result f = PublishConsumeRun.run(
                            client,
                            topic(admin, "lakestream", "rate-" + (int) low),
                            producers,
                            consumers,
                            MESSAGE_BYTES,
                            low,
                            PublishConsumeRun.Batching.CLIENT_DEFAULT,
                            warmup,
                            measure);
                    LakestreamCalls.Window w = calls.since(mark);
                    delivery.add("lakestream", "rate-" + (int) low, f);
                    lowRates.add(new RateRun(low, f, w));
                    System.out.printf(
                            Locale.ROOT,
                            "[bench-broker] lakestream at %,.0f msg/s: publish p50 %.1f ms p99 %.1f"
                                    + " ms, %.1f PUTs/s; %s%n",
                            low,
                            f.publish().percentileMillis(0.5),
                            f.publish().percentileMillis(0.99),
                            w.putsPerSecond(),
                            counts(f));
                }
            }
        }
        String loadAfter = loadAverage();
        double minutes = (System.nanoTime() - began) / 60e9;
        String section = report(
                        command,
                        minutes,
                        loadBefore,
                        loadAfter,
                        reps,
                        producers,
                        consumers,
                        rate,
                        warmup,
                        measure,
                        max,
                        fixed)
                + largeBatchReport(large)
                + delivery.render()
                + latencyReport(reps, rate, fixed, fixedCalls, sync, lowRates);
        System.out.println();
        System.out.println(section);
        if (delivery.failed()) {
            // After the report, so that the figures are visible; the doc keeps its last passing run.
            delivery.lostLines().forEach(System.out::println);
            System.out.println("[bench-broker] FAILED: acknowledged messages were not delivered; "
                    + (doc == null || quick ? "no doc to write" : doc + " not written"));
            System.exit(1);
        }
        if (doc != null && !quick) {
            writeSection(doc, section);
            System.out.println("[bench-broker] wrote the '" + HEADING + "' section of " + doc.toAbsolutePath());
        }
    }

    /** A run's delivery counts for the progress lines. */
    private static String counts(PublishConsumeRun.Result r) {
        DeliveryTracker.Delivery d = r.delivery();
        return String.format(
                Locale.ROOT,
                "%,d acknowledged, %,d received, %,d duplicates, %,d lost",
                d.acknowledged(),
                d.received(),
                d.duplicates(),
                d.lost());
    }

    /**
     * The mean payload per stored entry: acknowledged messages' bytes over the entries the topic's partitions added
     * (Pulsar's batch metadata not counted); NaN if the broker's stats are not available.
     */
    private static double meanEntryKiB(PulsarAdmin admin, String topic, PublishConsumeRun.Result r) {
        try {
            long entries = admin.topics().getPartitionedInternalStats(topic).partitions.values().stream()
                    .mapToLong(p -> p.entriesAddedCounter)
                    .sum();
            return entries == 0 ? Double.NaN : r.delivery().acknowledged() * (double) MESSAGE_BYTES / entries / 1024;
        } catch (Exception e) {
            System.out.println("[bench-broker] no internal stats of " + topic + ": " + e);
            return Double.NaN;
        }
    }

    /** A new partitioned topic in the storage's namespace. */
    private static String topic(PulsarAdmin admin, String storage, String name) throws Exception {
        String topic = "persistent://bench/" + storage + "/" + name;
        admin.topics().createPartitionedTopic(topic, PARTITIONS);
        return topic;
    }

    // ------------------------------------------------------------------------------------------------------ report

    private static String report(
            String command,
            double minutes,
            String loadBefore,
            String loadAfter,
            int reps,
            int producers,
            int consumers,
            double rate,
            long warmup,
            long measure,
            Map<String, List<PublishConsumeRun.Result>> max,
            Map<String, List<PublishConsumeRun.Result>> fixed) {
        StringBuilder b = new StringBuilder();
        b.append(HEADING).append("\n\n");
        b.append("Written by `dev.lakestream.tests.bench.BrokerBenchmark` (`tests/src/bench/java`): one Pulsar 5.0.1 "
                + "broker in hybrid mode (`conf/broker-hybrid.conf`, started as the tests start it, "
                + "`PulsarBrokerExtension.hybrid`) with BookKeeper as the default storage and Lakestream for one "
                + "namespace, "
                + "and the same workload through a BookKeeper namespace and a Lakestream namespace in the same run, "
                + "alternating which goes first. Figures are from one run of the command; do not edit them by hand, "
                + "run it again. **The machine is shared with other jobs and noisy**: compare the two storages "
                + "within a run (the ratios), not runs with each other.\n\n");
        b.append(runLines(command, minutes, loadBefore, loadAfter));
        b.append(String.format(
                Locale.ROOT,
                "- **Workload:** per run a new topic with %d partitions in namespace "
                        + "`bench/bookkeeper` (persistence 1/1/1, `-c bookkeeper`) or `bench/lakestream` (1/1/1, "
                        + "`-c lakestream`); %d producers (one thread each, the client's default batching except in the 1 MiB runs, at most %,d pending each, "
                        + "client memory limit 1 GiB), "
                        + "%d-byte messages; %d consumers of one failover subscription (the partitions spread over them, one "
                        + "thread each, acknowledging each message). Max rate: "
                        + "closed loop. Fixed rate: %,.0f msg/s in total. Each run %d s warm-up then %d s measured; %d "
                        + "repetitions of each (after one warm-up run of each). Publish latency: `sendAsync` to its "
                        + "acknowledgement; end to end: `sendAsync` to `receive` (same JVM clock).\n",
                PARTITIONS,
                producers,
                PublishConsumeRun.MAX_PENDING,
                MESSAGE_BYTES,
                consumers,
                rate,
                TimeUnit.NANOSECONDS.toSeconds(warmup),
                TimeUnit.NANOSECONDS.toSeconds(measure),
                reps));
        b.append("- **Storage set-up:** BookKeeper: one bookie and ZooKeeper in the broker's JVM (Pulsar's "
                + "`LocalBookkeeperEnsemble.startStandalone`: BookKeeper's defaults with DbLedgerStorage, 256 MiB "
                + "write cache, 64 MiB read-ahead cache, journal without fsync); ZooKeeper also holds Pulsar's "
                + "metadata. Nothing fsyncs on either side (S3Proxy and the test kit's Oxia do not). Lakestream: S3Proxy 4.1.0 (filesystem backend) and one "
                + "Oxia server, each its own process on the same machine, Lakestream's default writer settings. "
                + "Broker, bookie, ZooKeeper and clients share one JVM (`-Xmx4g`).\n\n");

        b.append("### Publish and consume, BookKeeper vs Lakestream\n\n");
        b.append("| | storage |");
        for (int i = 1; i <= reps; i++) {
            b.append(" run ").append(i).append(" |");
        }
        b.append(" median |\n|---|---|");
        b.append("---|".repeat(reps + 1)).append("\n");
        row(b, "max publish rate (msg/s)", max, PublishConsumeRun.Result::messagesPerSecond, "%,.0f");
        row(b, "max publish rate (MiB/s)", max, PublishConsumeRun.Result::mibPerSecond, "%.1f");
        row(b, "at max rate: publish p50 (ms)", max, r -> r.publish().percentileMillis(0.5), "%.1f");
        row(b, "at max rate: publish p99 (ms)", max, r -> r.publish().percentileMillis(0.99), "%.1f");
        row(b, "at max rate: end-to-end p50 (ms)", max, r -> r.endToEnd().percentileMillis(0.5), "%.1f");
        row(b, "at max rate: end-to-end p99 (ms)", max, r -> r.endToEnd().percentileMillis(0.99), "%.1f");
        String at = String.format(Locale.ROOT, "at %,.0f msg/s", rate);
        row(b, at + ": acknowledged (msg/s)", fixed, PublishConsumeRun.Result::messagesPerSecond, "%,.0f");
        row(b, at + ": publish p50 (ms)", fixed, r -> r.publish().percentileMillis(0.5), "%.1f");
        row(b, at + ": publish p99 (ms)", fixed, r -> r.publish().percentileMillis(0.99), "%.1f");
        row(b, at + ": end-to-end p50 (ms)", fixed, r -> r.endToEnd().percentileMillis(0.5), "%.1f");
        row(b, at + ": end-to-end p99 (ms)", fixed, r -> r.endToEnd().percentileMillis(0.99), "%.1f");

        b.append("\nLakestream / BookKeeper (medians; throughput above 1 = Lakestream faster, latency above 1 = "
                + "Lakestream slower):\n\n");
        ratio(b, "max publish rate", max, PublishConsumeRun.Result::messagesPerSecond);
        ratio(b, "publish latency at max rate, p50", max, r -> r.publish().percentileMillis(0.5));
        ratio(b, "publish latency at max rate, p99", max, r -> r.publish().percentileMillis(0.99));
        ratio(b, "end-to-end latency at max rate, p50", max, r -> r.endToEnd().percentileMillis(0.5));
        ratio(b, "end-to-end latency at max rate, p99", max, r -> r.endToEnd().percentileMillis(0.99));
        ratio(b, "publish latency " + at + ", p50", fixed, r -> r.publish().percentileMillis(0.5));
        ratio(b, "publish latency " + at + ", p99", fixed, r -> r.publish().percentileMillis(0.99));
        ratio(b, "end-to-end latency " + at + ", p50", fixed, r -> r.endToEnd().percentileMillis(0.5));
        ratio(b, "end-to-end latency " + at + ", p99", fixed, r -> r.endToEnd().percentileMillis(0.99));
        b.append("\n### Reading the figures\n\n");
        b.append("- Lakestream acknowledges a publish once its WAL object is in the bucket and indexed in Oxia: a PUT "
                + "(group commit: sealed at once when no PUT is in flight, else when the one in flight completes, at "
                + "most `maxPutsPerSecond` a second) and an Oxia write, where BookKeeper acknowledges after the "
                + "bookie's journal write (here without fsync). Its latency floor is therefore higher; S3 in "
                + "production adds its own PUT latency (tens of ms) that S3Proxy on loopback does not have.\n");
        b.append(String.format(
                Locale.ROOT,
                "- Max rate is a closed loop: each producer keeps up to %,d messages "
                        + "pending (`maxPendingMessages`; the client's 1 GiB memory limit also applies), so a storage's rate "
                        + "is also bounded by what is pending / publish latency (Little's law). With 1,000 pending per "
                        + "producer an earlier run of this benchmark had Lakestream at 28-30k msg/s, bound by that window "
                        + "(about 4,000 / 150 ms); with 10,000 both storages are bound by the CPU instead.%n",
                PublishConsumeRun.MAX_PENDING));
        b.append("- Latencies at max rate are mostly queueing: the producers keep their whole window pending, so a "
                + "publish waits about pending / rate, and the end-to-end figures add the consumer's backlog when it "
                + "falls behind. The storages' own latencies are the fixed-rate rows.\n");
        b.append("- Both storages share the machine's 2 cores with the broker, the clients, S3Proxy and Oxia (and "
                + "other jobs): the max rate is CPU-bound and says more about per-message cost than about the "
                + "storages' ceilings.\n");
        b.append("- The bookie runs with a 256 MiB write cache: with `LocalBookkeeperEnsemble`'s development settings "
                + "(2 MiB, what the tests use) the closed-loop runs stalled for 20 s and more on BookKeeper, a "
                + "set-up artefact rather than BookKeeper's behaviour.\n");
        return b.toString();
    }

    /** The max-rate runs with 1 MiB producer batches, side by side. */
    private static String largeBatchReport(Map<String, List<LargeBatchRun>> large) {
        PublishConsumeRun.Batching batching = PublishConsumeRun.Batching.LARGE;
        StringBuilder b = new StringBuilder();
        b.append("\n### Max rate with 1 MiB batches, BookKeeper vs Lakestream\n\n");
        b.append(String.format(
                Locale.ROOT,
                "The max-rate workload above with large producer batches: `batchingMaxBytes` %d KiB, "
                        + "`batchingMaxMessages` %,d (so the bytes bind), `batchingMaxPublishDelay` %d ms, %d-byte "
                        + "messages; entries of about 1 MiB are where a reader's byte budget refuses an entry part-way "
                        + "through an index record. Mean entry: acknowledged payload bytes over the entries the "
                        + "partitions added (the broker's internal stats; batch metadata not counted).%n%n",
                batching.maxBytes() >> 10,
                batching.maxMessages(),
                batching.maxDelayMillis(),
                MESSAGE_BYTES));
        int reps = large.get(STORAGES[0]).size();
        b.append("| | storage |");
        for (int i = 1; i <= reps; i++) {
            b.append(" run ").append(i).append(" |");
        }
        b.append(" median |\n|---|---|").append("---|".repeat(reps + 1)).append("\n");
        row(b, "max publish rate (msg/s)", large, r -> r.result().messagesPerSecond(), "%,.0f");
        row(b, "max publish rate (MiB/s)", large, r -> r.result().mibPerSecond(), "%.1f");
        row(b, "publish p50 (ms)", large, r -> r.result().publish().percentileMillis(0.5), "%.1f");
        row(b, "publish p99 (ms)", large, r -> r.result().publish().percentileMillis(0.99), "%.1f");
        row(b, "mean entry (KiB)", large, LargeBatchRun::meanEntryKiB, "%.0f");
        row(b, "acknowledged", large, r -> r.result().delivery().acknowledged(), "%,.0f");
        row(b, "received", large, r -> r.result().delivery().received(), "%,.0f");
        row(b, "duplicates", large, r -> r.result().delivery().duplicates(), "%,.0f");
        row(b, "lost", large, r -> r.result().delivery().lost(), "%,.0f");
        b.append(String.format(
                Locale.ROOT,
                "%nLakestream / BookKeeper max publish rate with 1 MiB batches (medians): **%.2f**.%n",
                median(large.get("lakestream"), r -> r.result().messagesPerSecond())
                        / median(large.get("bookkeeper"), r -> r.result().messagesPerSecond())));
        return b.toString();
    }

    /** The synchronous producer, and the PUTs and index commits behind Lakestream's fixed-rate latencies. */
    private static String latencyReport(
            int reps,
            double rate,
            Map<String, List<PublishConsumeRun.Result>> fixed,
            List<LakestreamCalls.Window> fixedCalls,
            Map<String, List<SyncProducerRun.Result>> sync,
            List<RateRun> lowRates) {
        StringBuilder b = new StringBuilder();
        b.append("\n### One message in flight (synchronous producer)\n\n");
        b.append("One producer on a one-partition topic, batching off, each `send` waited for before the next, 1 KiB "
                + "messages; the same warm-up and measured window as above, the storages alternating. Lakestream's "
                + "PUT and index-commit latencies are the broker's own metrics (its counting decorators) over the "
                + "same window, percentiles interpolated within the metrics' buckets (0.5, 1, 2.5, 5, 10, 25, 50, 100 "
                + "ms, ...), so good to about a bucket's width.\n\n");
        b.append("| run | storage | msg/s | publish p50 (ms) | publish p99 (ms) | PUT p50 / p99 (ms) "
                + "| commit p50 / p99 (ms) | PUTs/s |\n|---|---|---|---|---|---|---|---|\n");
        for (int i = 0; i < reps; i++) {
            for (String s : STORAGES) {
                if (sync.get(s).size() <= i) {
                    continue;
                }
                SyncProducerRun.Result r = sync.get(s).get(i);
                LakestreamCalls.Window w = r.calls();
                b.append(String.format(
                        Locale.ROOT,
                        "| %d | %s | %,.1f | %.2f | %.2f | %s | %s | %s |%n",
                        i + 1,
                        s,
                        r.messagesPerSecond(),
                        r.publish().percentileMillis(0.5),
                        r.publish().percentileMillis(0.99),
                        w == null ? "-" : String.format(Locale.ROOT, "%.2f / %.2f", w.putP50(), w.putP99()),
                        w == null ? "-" : String.format(Locale.ROOT, "%.2f / %.2f", w.commitP50(), w.commitP99()),
                        w == null ? "-" : String.format(Locale.ROOT, "%.1f", w.putsPerSecond())));
            }
        }
        List<SyncProducerRun.Result> ls = sync.get("lakestream");
        List<SyncProducerRun.Result> bk = sync.get("bookkeeper");
        double lsP50 = medianOf(
                ls.stream().mapToDouble(r -> r.publish().percentileMillis(0.5)).toArray());
        double floor = medianOf(ls.stream()
                .mapToDouble(r -> r.calls().putP50() + r.calls().commitP50())
                .toArray());
        b.append(String.format(
                Locale.ROOT,
                "%nMedians: Lakestream %,.1f msg/s, BookKeeper %,.1f msg/s (Lakestream / "
                        + "BookKeeper **%.2f**); publish p50 Lakestream %.2f ms, BookKeeper %.2f ms; publish p99 "
                        + "Lakestream %.2f ms, BookKeeper %.2f ms. Lakestream p50 / (PUT p50 + commit p50) = %.2f / "
                        + "%.2f = **%.2f** (target <= 1.5).%n",
                medianOf(ls.stream()
                        .mapToDouble(SyncProducerRun.Result::messagesPerSecond)
                        .toArray()),
                medianOf(bk.stream()
                        .mapToDouble(SyncProducerRun.Result::messagesPerSecond)
                        .toArray()),
                medianOf(ls.stream()
                                .mapToDouble(SyncProducerRun.Result::messagesPerSecond)
                                .toArray())
                        / medianOf(bk.stream()
                                .mapToDouble(SyncProducerRun.Result::messagesPerSecond)
                                .toArray()),
                lsP50,
                medianOf(bk.stream()
                        .mapToDouble(r -> r.publish().percentileMillis(0.5))
                        .toArray()),
                medianOf(ls.stream()
                        .mapToDouble(r -> r.publish().percentileMillis(0.99))
                        .toArray()),
                medianOf(bk.stream()
                        .mapToDouble(r -> r.publish().percentileMillis(0.99))
                        .toArray()),
                lsP50,
                floor,
                lsP50 / floor));

        b.append("\n### Lakestream's PUTs per second by publish rate\n\n");
        b.append("The fixed-rate workload above (16 partitions, 4 producers, default batching) on Lakestream at lower "
                + "rates, one run each, and the main rate's runs; PUTs and index commits from the broker's metrics "
                + "over the whole run (its warm-up included).\n\n");
        b.append("| msg/s | publish p50 (ms) | publish p99 (ms) | PUT p99 + commit p99 (ms) | publish p99 / that sum "
                + "| PUTs/s |\n|---|---|---|---|---|---|\n");
        for (RateRun r : lowRates) {
            rateRow(b, r.rate(), r.result(), r.calls());
        }
        List<PublishConsumeRun.Result> main = fixed.get("lakestream");
        for (int i = 0; i < main.size() && i < fixedCalls.size(); i++) {
            rateRow(b, rate, main.get(i), fixedCalls.get(i));
        }
        double p99 = medianOf(main.stream()
                .mapToDouble(r -> r.publish().percentileMillis(0.99))
                .toArray());
        double sum = medianOf(
                fixedCalls.stream().mapToDouble(w -> w.putP99() + w.commitP99()).toArray());
        b.append(String.format(
                Locale.ROOT,
                "%nAt %,.0f msg/s (medians of the runs): publish p99 %.1f ms, PUT p99 + "
                        + "commit p99 %.1f ms: **%.2f** (target <= 1.5).%n",
                rate,
                p99,
                sum,
                p99 / sum));
        return b.toString();
    }

    private static void rateRow(StringBuilder b, double rate, PublishConsumeRun.Result r, LakestreamCalls.Window w) {
        double sum = w.putP99() + w.commitP99();
        b.append(String.format(
                Locale.ROOT,
                "| %,.0f | %.1f | %.1f | %.1f | %.2f | %.1f |%n",
                rate,
                r.publish().percentileMillis(0.5),
                r.publish().percentileMillis(0.99),
                sum,
                r.publish().percentileMillis(0.99) / sum,
                w.putsPerSecond()));
    }

    private static double medianOf(double[] values) {
        if (values.length == 0) {
            return Double.NaN;
        }
        double[] sorted = values.clone();
        java.util.Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    private static <T> void row(
            StringBuilder b, String name, Map<String, List<T>> runs, ToDoubleFunction<T> f, String format) {
        for (String s : STORAGES) {
            b.append("| ").append(name).append(" | ").append(s).append(" |");
            for (T r : runs.get(s)) {
                b.append(' ')
                        .append(String.format(Locale.ROOT, format, f.applyAsDouble(r)))
                        .append(" |");
            }
            b.append(" **")
                    .append(String.format(Locale.ROOT, format, median(runs.get(s), f)))
                    .append("** |\n");
        }
    }

    private static void ratio(
            StringBuilder b,
            String name,
            Map<String, List<PublishConsumeRun.Result>> runs,
            ToDoubleFunction<PublishConsumeRun.Result> f) {
        double ls = median(runs.get("lakestream"), f);
        double bk = median(runs.get("bookkeeper"), f);
        b.append("- ")
                .append(name)
                .append(": **")
                .append(String.format(Locale.ROOT, "%.2f", ls / bk))
                .append("**\n");
    }

    static <T> double median(List<T> runs, ToDoubleFunction<T> f) {
        double[] v = runs.stream().mapToDouble(f).sorted().toArray();
        if (v.length == 0) {
            return Double.NaN;
        }
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    // ----------------------------------------------------------------------------------------------------- machine

    /** The lines every section starts with: the command, when and how long, the machine, its load. */
    static String runLines(String command, double minutes, String loadBefore, String loadAfter) {
        return "- **Command:** `" + command + "`\n"
                + "- **Date:** "
                + ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm"))
                + String.format(Locale.ROOT, " UTC (the whole benchmark took %.1f min)%n", minutes)
                + "- **Machine:** " + machine() + "\n"
                + "- **Load average (1/5/15 min):** " + loadBefore + " before, " + loadAfter + " after\n";
    }

    static String machine() {
        String cores = command("nproc").trim();
        String cpu = lines("/proc/cpuinfo").stream()
                .filter(l -> l.startsWith("model name"))
                .map(l -> l.substring(l.indexOf(':') + 1).trim())
                .findFirst()
                .orElse(System.getProperty("os.arch"));
        String mem = lines("/proc/meminfo").stream()
                .filter(l -> l.startsWith("MemTotal:"))
                .map(l -> String.format(Locale.ROOT, "%.1f GiB", Long.parseLong(l.replaceAll("\\D", "")) / 1048576.0))
                .findFirst()
                .orElse("unknown");
        String jdk = System.getProperty("java.vm.vendor") + " " + System.getProperty("java.runtime.name") + " "
                + System.getProperty("java.runtime.version");
        String os = lines("/etc/os-release").stream()
                .filter(l -> l.startsWith("PRETTY_NAME="))
                .map(l -> l.substring(12).replace("\"", ""))
                .findFirst()
                .orElse(System.getProperty("os.name"));
        return (cores.isEmpty() ? Runtime.getRuntime().availableProcessors() : cores) + " cores (`nproc`), " + cpu
                + ", " + mem + " RAM; " + jdk + "; " + os + ", kernel " + System.getProperty("os.version");
    }

    static String loadAverage() {
        List<String> l = lines("/proc/loadavg");
        if (l.isEmpty()) {
            return "unknown";
        }
        String[] f = l.get(0).split("\\s+", -1);
        return f.length >= 3 ? f[0] + " / " + f[1] + " / " + f[2] : l.get(0);
    }

    private static List<String> lines(String file) {
        try {
            return Files.readAllLines(Path.of(file), StandardCharsets.UTF_8);
        } catch (IOException | RuntimeException e) {
            return List.of();
        }
    }

    private static String command(String... cmd) {
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            return p.waitFor(5, TimeUnit.SECONDS) && p.exitValue() == 0 ? out : "";
        } catch (IOException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }

    // ------------------------------------------------------------------------------------------------- the doc

    /** Replaces this benchmark's section of the Markdown file (up to the next "## " heading), or appends it. */
    static void writeSection(Path doc, String section) throws IOException {
        BenchmarksDoc.writeSection(doc, HEADING, section);
    }
}
