package dev.lakestream.tests.bench;

import dev.lakestream.core.metrics.LakestreamMetrics;
import dev.lakestream.pulsar.LakestreamManagedLedgerStorage;
import dev.lakestream.testkit.BenchCommandLine;
import dev.lakestream.testkit.BenchmarksDoc;
import dev.lakestream.tests.PulsarBrokerExtension;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.apache.pulsar.client.admin.PulsarAdmin;
import org.apache.pulsar.client.api.Consumer;
import org.apache.pulsar.client.api.Message;
import org.apache.pulsar.client.api.MessageId;
import org.apache.pulsar.client.api.Producer;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.Reader;
import org.apache.pulsar.common.policies.data.RetentionPolicies;
import org.apache.pulsar.common.policies.data.TenantInfo;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Storage amplification, the scenario of issue 21: one broker on S3Proxy + Oxia with S3-like object sizes
 * ({@code lakestream.writer.maxPutsPerSecond=50}) and fast GC; a topic in a namespace with infinite retention gets
 * 10 msg/s of 1 KiB next to a topic in a namespace without retention that gets 2,000 msg/s, fully consumed by one
 * subscription. After the load, once trimming, compaction and GC have settled, the bucket's bytes over the retained
 * topic's bytes; then a catch-up read of the retained topic from the earliest message, its GETs counted. Twice in one
 * run: compaction off, then on (each on fresh servers). Every message acknowledged to the producers must be delivered
 * (the churn subscription, the catch-up reader): a shortfall prints LOST and exits 1 without writing the doc.
 */
public final class AmplificationBenchmark {

    static final String HEADING = "## Storage amplification: compaction off vs on";

    private static final int MESSAGE = 1024;

    record Result(
            boolean compaction,
            long objects,
            long bucketBytes,
            long segments,
            long retainedMessages,
            long retainedBytes,
            long churnSent,
            long churnReceived,
            long churnKeptBytes,
            long catchUpReceived,
            double catchUpGets,
            double settleSeconds) {

        double ratio() {
            return (double) bucketBytes / retainedBytes;
        }

        /** The bucket over everything Pulsar's own rules keep: the retained topic and the churn topic's ledgers left. */
        double ratioToKept() {
            return (double) bucketBytes / (retainedBytes + churnKeptBytes);
        }
    }

    /** The command line. */
    @Command(name = "AmplificationBenchmark", showDefaultValues = true)
    static final class Options {
        @Mixin
        DocOptions out = new DocOptions("bin/bench-amplification");

        @Option(names = "--seconds", paramLabel = "S")
        int seconds = 30;

        /** 10 s of load, where it stands: a --seconds after it wins. */
        @Option(names = "--quick")
        void quick(boolean on) {
            if (on) {
                seconds = 10;
            }
        }
    }

    public static void main(String[] args) throws Exception {
        Options options = BenchCommandLine.parseOrExit(new Options(), args);
        Path doc = options.out.doc;
        String command = options.out.command;
        int seconds = options.seconds;
        long began = System.nanoTime();
        String loadBefore = BrokerBenchmark.loadAverage();
        List<Result> results = new ArrayList<>();
        for (boolean compaction : new boolean[] {false, true}) {
            results.add(run(compaction, seconds));
        }
        String report = report(
                command,
                (System.nanoTime() - began) / 60e9,
                loadBefore,
                BrokerBenchmark.loadAverage(),
                seconds,
                results);
        System.out.println(report);
        boolean lost = false;
        for (Result r : results) {
            if (r.churnReceived < r.churnSent || r.catchUpReceived < r.retainedMessages) {
                System.out.printf(
                        Locale.ROOT,
                        "LOST: compaction %s: churn %d of %d delivered, retained %d of %d read back%n",
                        r.compaction ? "on" : "off",
                        r.churnReceived,
                        r.churnSent,
                        r.catchUpReceived,
                        r.retainedMessages);
                lost = true;
            }
        }
        if (lost) {
            System.exit(1);
        }
        if (doc != null) {
            BenchmarksDoc.writeSection(doc, HEADING, report);
            System.out.println("[bench-amplification] wrote " + doc);
        }
        System.exit(0);
    }

    private static Result run(boolean compaction, int seconds) throws Exception {
        System.out.printf(
                Locale.ROOT, "[bench-amplification] compaction %s: starting a broker%n", compaction ? "on" : "off");
        try (PulsarBrokerExtension broker = PulsarBrokerExtension.onS3ProxyAndOxia()
                .config("lakestream.writer.maxPutsPerSecond", "50")
                .config("lakestream.gc.interval", "10s")
                .config("lakestream.gc.safetyMargin", "5s")
                .config("lakestream.gc.orphanDelay", "5s")
                .config("lakestream.gc.commitWindow", "5s")
                .config("lakestream.compaction.enabled", Boolean.toString(compaction))
                .config("lakestream.compaction.delay", "10s")
                .config("lakestream.compaction.interval", "5s")
                .config("retentionCheckIntervalInSeconds", "5")
                .config("managedLedgerMinLedgerRolloverTimeMinutes", "0")
                .config("managedLedgerMaxEntriesPerLedger", "200")
                // Once the churn stops, Pulsar closes its open ledger after 10 s idle; consumed, it is trimmed.
                .config("managedLedgerInactiveLedgerRolloverTimeSeconds", "10")) {
            broker.start();
            PulsarAdmin admin = broker.admin();
            admin.tenants()
                    .createTenant(
                            "amp",
                            TenantInfo.builder()
                                    .allowedClusters(Set.of(
                                            broker.pulsar().getConfiguration().getClusterName()))
                                    .build());
            admin.namespaces().createNamespace("amp/retained");
            admin.namespaces().setRetention("amp/retained", new RetentionPolicies(-1, -1));
            admin.namespaces().createNamespace("amp/churn");
            admin.namespaces().setRetention("amp/churn", new RetentionPolicies(0, 0));
            String retained = "persistent://amp/retained/t";
            String churn = "persistent://amp/churn/t";
            admin.topics().createNonPartitionedTopic(retained);
            admin.topics().createNonPartitionedTopic(churn);
            admin.topics().createSubscription(churn, "all", MessageId.earliest);
            try (PulsarClient client = broker.newClient()) {
                AtomicLong churnReceived = new AtomicLong();
                AtomicBoolean consuming = new AtomicBoolean(true);
                Consumer<byte[]> churnConsumer = client.newConsumer()
                        .topic(churn)
                        .subscriptionName("all")
                        .receiverQueueSize(5000)
                        .subscribe();
                Thread consumerThread = Thread.ofPlatform().start(() -> {
                    try {
                        while (true) {
                            Message<byte[]> m = churnConsumer.receive(2, TimeUnit.SECONDS);
                            if (m == null) {
                                if (!consuming.get()) {
                                    return;
                                }
                                continue;
                            }
                            churnReceived.incrementAndGet();
                            churnConsumer.acknowledgeAsync(m);
                        }
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                });
                long churnSent;
                long retainedSent;
                try (Producer<byte[]> churnProducer = client.newProducer()
                                .topic(churn)
                                .batchingMaxPublishDelay(1, TimeUnit.MILLISECONDS)
                                .create();
                        Producer<byte[]> retainedProducer = client.newProducer()
                                .topic(retained)
                                .enableBatching(false)
                                .create()) {
                    // Random bytes: segments are compressed (ZSTD), and zeros would make them look smaller than data
                    // does.
                    java.util.Random random = new java.util.Random(20261204L);
                    byte[] body = new byte[MESSAGE];
                    List<CompletableFuture<MessageId>> pending = new ArrayList<>();
                    long start = System.nanoTime();
                    long sentChurn = 0;
                    long sentRetained = 0;
                    // Paced in 10 ms steps: 20 churn messages per step, one retained message per 100 ms.
                    for (long step = 0; step < seconds * 100L; step++) {
                        long due = start + step * 10_000_000L;
                        long wait = due - System.nanoTime();
                        if (wait > 0) {
                            TimeUnit.NANOSECONDS.sleep(wait);
                        }
                        for (int k = 0; k < 20; k++) {
                            random.nextBytes(body);
                            pending.add(churnProducer.sendAsync(body.clone()));
                            sentChurn++;
                        }
                        if (step % 10 == 0) {
                            random.nextBytes(body);
                            pending.add(retainedProducer.sendAsync(body.clone()));
                            sentRetained++;
                        }
                    }
                    churnProducer.flush();
                    CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new))
                            .get(60, TimeUnit.SECONDS);
                    churnSent = sentChurn;
                    retainedSent = sentRetained;
                }
                // Delivered in full before measuring: the subscription's acks let retention trim the churn topic.
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (churnReceived.get() < churnSent && System.nanoTime() < deadline) {
                    Thread.sleep(100);
                }
                consuming.set(false);
                consumerThread.join();
                churnConsumer.close();

                Path bucket = broker.s3().dataDir().resolve(broker.bucket());
                double settled = settle(bucket);
                long[] stored = bucketSize(bucket);
                // What Pulsar keeps of the consumed churn topic by its own rules (it trims closed ledgers only, so at
                // least the open one stays, as with BookKeeper): the ledgers its internal stats still list.
                long churnKept = admin.topics().getInternalStats(churn).ledgers.stream()
                        .mapToLong(l -> l.size)
                        .sum();
                // The catch-up from a cold cache: a restarted broker, as a consumer after a move or a replay reads.
                broker.restart();
                double getsBefore = gets(broker);
                long read = 0;
                try (PulsarClient fresh = broker.newClient();
                        Reader<byte[]> reader = fresh.newReader()
                                .topic(retained)
                                .startMessageId(MessageId.earliest)
                                .create()) {
                    while (reader.readNext(10, TimeUnit.SECONDS) != null) {
                        read++;
                    }
                }
                double catchUpGets = gets(broker) - getsBefore;
                return new Result(
                        compaction,
                        stored[0],
                        stored[1],
                        stored[2],
                        retainedSent,
                        retainedSent * MESSAGE,
                        churnSent,
                        churnReceived.get(),
                        churnKept,
                        read,
                        catchUpGets,
                        settled);
            }
        }
    }

    /** Waits until the bucket stops shrinking for 40 s (three GC intervals and more), at most 4 min; returns the wait. */
    private static double settle(Path bucket) throws InterruptedException {
        long start = System.nanoTime();
        long best = Long.MAX_VALUE;
        long bestAt = System.nanoTime();
        while (System.nanoTime() - start < TimeUnit.MINUTES.toNanos(4)) {
            long bytes = bucketSize(bucket)[1];
            if (bytes < best) {
                best = bytes;
                bestAt = System.nanoTime();
                System.out.printf(Locale.ROOT, "[bench-amplification] bucket at %,d bytes%n", bytes);
            } else if (System.nanoTime() - bestAt > TimeUnit.SECONDS.toNanos(40)) {
                break;
            }
            Thread.sleep(2000);
        }
        return (System.nanoTime() - start) / 1e9;
    }

    /**
     * Objects, bytes and segments under the bucket (S3Proxy's files; its own metadata files left out). GC deletes
     * while the walk runs: a directory gone under it makes the walk start again.
     */
    private static long[] bucketSize(Path bucket) {
        for (int attempt = 1; ; attempt++) {
            try {
                return walkBucket(bucket);
            } catch (UncheckedIOException e) {
                if (!(e.getCause() instanceof java.nio.file.NoSuchFileException) || attempt >= 10) {
                    throw e;
                }
            }
        }
    }

    private static long[] walkBucket(Path bucket) {
        try (Stream<Path> files = Files.walk(bucket)) {
            long[] out = new long[3];
            files.filter(Files::isRegularFile).forEach(f -> {
                out[0]++;
                try {
                    out[1] += Files.size(f);
                } catch (IOException e) {
                    // deleted while listed
                }
                if (bucket.relativize(f).toString().contains("segments/")) {
                    out[2]++;
                }
            });
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The broker's object-store GETs so far (its own metrics, read in process). */
    private static double gets(PulsarBrokerExtension broker) {
        return ((LakestreamManagedLedgerStorage) broker.pulsar().getManagedLedgerStorage())
                .lakestream()
                .metrics()
                .objectStore(LakestreamMetrics.ObjectStoreOp.GET)
                .requests();
    }

    private static String report(
            String command, double minutes, String loadBefore, String loadAfter, int seconds, List<Result> results) {
        StringBuilder b = new StringBuilder();
        b.append(HEADING).append("\n\n");
        b.append(
                "Written by `dev.lakestream.tests.bench.AmplificationBenchmark` (`tests/src/bench/java`): the scenario "
                        + "of issue 21, twice in one run, compaction off then on, each on a fresh in-process broker "
                        + "(`PulsarBrokerExtension.onS3ProxyAndOxia`: `conf/broker-diskless.conf`, S3Proxy and Oxia from the "
                        + "test kit). Do not edit the figures by hand; run the command again.\n\n");
        b.append(BrokerBenchmark.runLines(command, minutes, loadBefore, loadAfter));
        b.append(String.format(
                Locale.ROOT,
                "- **Workload:** %d s of 1 KiB messages of random bytes: 10 msg/s to `amp/retained/t` (retention -1/-1, no subscription, "
                        + "unbatched) and 2,000 msg/s to `amp/churn/t` (retention 0, one subscription acknowledging "
                        + "everything); `lakestream.writer.maxPutsPerSecond=50` (S3-like object sizes), GC every 10 s with "
                        + "5 s margins, retention checks every 5 s, virtual ledgers of at most 200 entries, closed after 10 s without writes (`managedLedgerInactiveLedgerRolloverTimeSeconds=10`: Pulsar trims closed ledgers only, so once the churn stops its last ledger is closed and trimmed, as it would be on BookKeeper); with "
                        + "compaction: `delay=10s`, `interval=5s`, the default 128 MiB segments (so the retained topic's "
                        + "segments are small, one per pass). Measured once the bucket has not shrunk for 40 s. Retained "
                        + "bytes: the retained topic's message payload; churn kept by Pulsar: the sizes of the ledgers the "
                        + "churn topic's internal stats still list once everything is consumed. Catch-up: a reader of the retained topic from the "
                        + "earliest message after a broker restart (a cold cache), the broker's object-store GETs during it.%n%n",
                seconds));
        b.append(
                "| compaction | bucket objects | bucket bytes | of them segments | retained bytes | **bucket / retained** "
                        + "| churn kept by Pulsar | bucket / all Pulsar keeps | churn delivered | retained read back "
                        + "| catch-up GETs | settled after |\n");
        b.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Result r : results) {
            b.append(String.format(
                    Locale.ROOT,
                    "| %s | %,d | %,d | %,d | %,d | **%.2f** | %,d | %.2f | %,d / %,d | %,d / %,d | %,.0f | %.0f s |%n",
                    r.compaction ? "on" : "off",
                    r.objects,
                    r.bucketBytes,
                    r.segments,
                    r.retainedBytes,
                    r.ratio(),
                    r.churnKeptBytes,
                    r.ratioToKept(),
                    r.churnReceived,
                    r.churnSent,
                    r.catchUpReceived,
                    r.retainedMessages,
                    r.catchUpGets,
                    r.settleSeconds));
        }
        if (results.size() == 2) {
            b.append(String.format(
                    Locale.ROOT,
                    "%nCompaction on / off: bucket bytes %.3f, catch-up GETs %.3f.%n",
                    (double) results.get(1).bucketBytes / results.get(0).bucketBytes,
                    results.get(1).catchUpGets / Math.max(1, results.get(0).catchUpGets)));
        }
        return b.toString();
    }
}
