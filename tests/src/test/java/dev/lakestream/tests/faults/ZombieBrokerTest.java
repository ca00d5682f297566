package dev.lakestream.tests.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lakestream.tests.BrokerProcess;
import dev.lakestream.tests.KeyedTraffic;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.pulsar.client.admin.PulsarAdmin;
import org.apache.pulsar.client.api.MessageId;
import org.apache.pulsar.client.api.Producer;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.impl.ClientCnx;
import org.apache.pulsar.client.impl.ProducerImpl;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The zombie owner (docs/layout.md §5, end to end): two broker processes on one Oxia and one bucket; the owner of a
 * topic under keyed traffic is frozen with {@code SIGSTOP} past its metadata session timeout, the other broker takes
 * the topic over and accepts writes, then the first runs on ({@code SIGCONT}) with a producer still connected to it
 * whose sends it received while frozen. Whatever the old owner does with them must not lose an acknowledged message,
 * store one twice (deduplication is on) or put offsets out of order, and it must acknowledge none of them after the
 * takeover (a split brain).
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class ZombieBrokerTest {

    private static final Logger LOG = LoggerFactory.getLogger(ZombieBrokerTest.class);
    static final FaultReport REPORT = new FaultReport(
            "## Measured: zombie broker",
            "Two broker processes, S3Proxy, Oxia, `metadataStoreSessionTimeoutMillis=5000`; the owner paused 20 s "
                    + "(SIGSTOP) while " + FaultScenario.RATE + " keyed messages/s flow, then resumed (SIGCONT) with a "
                    + "producer still connected to it.");
    private static final int ZOMBIE_SENDS = 20;

    @RegisterExtension
    static final FaultClusterExtension CLUSTER = new FaultClusterExtension("zombie", 2, REPORT);

    private static FaultCluster cluster() {
        return CLUSTER.cluster();
    }

    @Test
    void aPausedOwnerThatWakesAfterTheTakeoverLosesNothingAndDuplicatesNothing() throws Exception {
        String topic = "persistent://" + FaultScenario.DEDUP_NAMESPACE + "/zombie";
        try (MemorySampler memory = new MemorySampler(cluster().brokers());
                PulsarClient client = cluster().client();
                KeyedTraffic traffic = new KeyedTraffic(client, topic, "zombie-main").start(FaultScenario.RATE)) {
            await("200 acknowledgements before the pause")
                    .atMost(Duration.ofMinutes(1))
                    .ignoreExceptionsInstanceOf(Exception.class)
                    .until(() -> traffic.ackedCount() >= 200);
            BrokerProcess owner;
            try (PulsarAdmin admin = cluster().admin()) {
                owner = cluster().broker(admin.lookups().lookupTopic(topic));
            }
            BrokerProcess other = cluster().brokers().stream()
                    .filter(b -> b != owner)
                    .findFirst()
                    .orElseThrow();
            long logBefore = Files.size(owner.logFile());

            // A producer that only knows the owner, with a keep-alive longer than the pause: it stays connected.
            Set<Integer> zombieAcked = ConcurrentHashMap.newKeySet();
            Set<Integer> ackedByOldOwner = ConcurrentHashMap.newKeySet();
            List<String> zombieFailures = new ArrayList<>();
            try (PulsarClient ownerOnly = PulsarClient.builder()
                            .serviceUrl("pulsar://" + owner.brokerAddress())
                            .keepAliveInterval(120, TimeUnit.SECONDS)
                            .operationTimeout(30, TimeUnit.SECONDS)
                            .build();
                    Producer<byte[]> zombieProducer = ownerOnly
                            .newProducer()
                            .topic(topic)
                            .producerName("zombie-side")
                            .sendTimeout(60, TimeUnit.SECONDS)
                            .enableBatching(false)
                            .create()) {
                zombieProducer
                        .newMessage()
                        .key("z")
                        .value("z-before".getBytes(StandardCharsets.UTF_8))
                        .send();

                owner.pause();
                long pausedAt = System.nanoTime();
                LOG.info("Paused {} (owner of {})", owner, topic);
                List<CompletableFuture<MessageId>> zombieSends = new ArrayList<>();
                for (int i = 0; i < ZOMBIE_SENDS; i++) {
                    int n = i;
                    zombieSends.add(zombieProducer
                            .newMessage()
                            .key("z")
                            .value(("z" + n).getBytes(StandardCharsets.UTF_8))
                            .sendAsync()
                            .whenComplete((id, e) -> {
                                if (e == null) {
                                    zombieAcked.add(n);
                                    if (connectedTo(zombieProducer, owner)) {
                                        ackedByOldOwner.add(n);
                                    }
                                } else {
                                    synchronized (zombieFailures) {
                                        zombieFailures.add(e.toString());
                                    }
                                }
                            }));
                }
                // The other broker takes the topic once the owner's session lapsed and the clients gave up on it.
                await("the topic to accept writes on " + other.name() + " while " + owner.name() + " is paused")
                        .atMost(Duration.ofSeconds(90))
                        .ignoreExceptionsInstanceOf(Exception.class)
                        .until(() -> traffic.firstAckAtOrAfter(pausedAt + TimeUnit.SECONDS.toNanos(6)) > 0);
                long takeover = traffic.firstAckAtOrAfter(pausedAt + TimeUnit.SECONDS.toNanos(6));
                long holdUntil = pausedAt + TimeUnit.SECONDS.toNanos(20);
                Thread.sleep(Math.max(0, TimeUnit.NANOSECONDS.toMillis(holdUntil - System.nanoTime())));
                owner.resume();
                long resumed = System.nanoTime();
                LOG.info(
                        "Resumed {} after {} s; the topic accepted writes again {} s after the pause",
                        owner,
                        (resumed - pausedAt) / 1_000_000_000,
                        (takeover - pausedAt) / 1_000_000_000);

                CompletableFuture.allOf(zombieSends.toArray(CompletableFuture[]::new))
                        .handle((v, e) -> null)
                        .get(120, TimeUnit.SECONDS);
                Thread.sleep(3000);
                traffic.stopSending();
                assertThat(traffic.awaitSettled(90))
                        .as(
                                "main traffic settled: unanswered %d, not received %s",
                                traffic.unanswered(), FaultScenario.head(traffic.notReceived()))
                        .isTrue();

                KeyedTraffic.Stored stored = storedWithZombie(client, topic);
                List<Integer> lost = traffic.acked().stream()
                        .filter(n -> !stored.counts().containsKey(n) || !traffic.wasReceived(n))
                        .sorted()
                        .toList();
                List<Integer> zombieLost = zombieAcked.stream()
                        .filter(n -> !stored.counts().containsKey(ZOMBIE_BASE + n))
                        .sorted()
                        .toList();
                String ownerLog = new String(Files.readAllBytes(owner.logFile()), StandardCharsets.UTF_8)
                        .substring((int) logBefore);
                long fencedLines = ownerLog.lines()
                        .filter(l -> l.toLowerCase(Locale.ROOT).contains("fenced"))
                        .count();
                String note = "paused " + owner.name() + " 20 s; writes resumed on " + other.name() + " after "
                        + String.format("%.1f", (takeover - pausedAt) / 1e9) + " s; side producer: "
                        + zombieAcked.size()
                        + "/" + ZOMBIE_SENDS + " acked, " + ackedByOldOwner.size() + " acked by the old owner, "
                        + zombieFailures.size() + " failed; old owner log: " + fencedLines + " lines on fencing, "
                        + (owner.isAlive() ? "still running" : "exited");
                FaultReport.Row row = new FaultReport.Row(
                        "Zombie owner (SIGSTOP 20 s, SIGCONT)",
                        true,
                        traffic.ackedCount() + zombieAcked.size(),
                        traffic.failed().size() + zombieFailures.size(),
                        lost.size() + zombieLost.size(),
                        stored.storedTwice(),
                        traffic.redelivered(),
                        traffic.orderViolations(),
                        stored.idsNotRising(),
                        (takeover - pausedAt) / 1e9,
                        traffic.latencyMs(0.99, pausedAt, resumed),
                        memory.maxHeapBytes(),
                        memory.maxDirectBytes(),
                        note);
                REPORT.add(row);
                LOG.info("Zombie scenario: {}; zombie failures {}", row, FaultScenario.head(zombieFailures));

                assertThat(lost)
                        .as("acknowledged main messages not stored or never delivered")
                        .isEmpty();
                assertThat(zombieLost)
                        .as("side-producer messages acknowledged but not stored")
                        .isEmpty();
                // Stored twice would be the zombie window: a commit whose epoch check passed just before the freeze,
                // sent when the owner wakes, landing after the takeover while the producer had resent its messages to
                // the new owner. Such a commit is void (docs/layout.md §5, seals): no reader delivers it, and the old
                // owner does not acknowledge it.
                assertThat(stored.storedTwice())
                        .as("messages stored twice with deduplication on")
                        .isZero();
                assertThat(stored.idsNotRising())
                        .as("stored ids that do not rise")
                        .isZero();
                assertThat(stored.afterEnd())
                        .as("messages read after the reader's end (%s)", stored.end())
                        .isZero();
                assertThat(traffic.orderViolations())
                        .as("per-key order violations")
                        .isZero();
                assertThat(ackedByOldOwner)
                        .as("appends the old owner acknowledged after the takeover")
                        .isEmpty();
            }
        } finally {
            for (BrokerProcess b : cluster().brokers()) {
                if (b.isAlive()) {
                    try {
                        b.resume();
                    } catch (Exception ignored) {
                        // not paused
                    }
                }
            }
            cluster().restartStoppedBrokers();
        }
    }

    /** Side-producer messages ({@code z<n>}) are counted as {@code ZOMBIE_BASE + n}. */
    private static final int ZOMBIE_BASE = 1_000_000_000;

    private static KeyedTraffic.Stored storedWithZombie(PulsarClient client, String topic) throws Exception {
        return KeyedTraffic.stored(
                client,
                topic,
                v -> v.startsWith("z-")
                        ? null
                        : v.startsWith("z") ? ZOMBIE_BASE + Integer.parseInt(v.substring(1)) : Integer.parseInt(v));
    }

    /** Whether the producer's connection, when it got an answer, was to {@code broker}. */
    private static boolean connectedTo(Producer<byte[]> producer, BrokerProcess broker) {
        ClientCnx cnx = ((ProducerImpl<byte[]>) producer).getClientCnx();
        if (cnx == null || cnx.ctx() == null) {
            return false;
        }
        if (cnx.ctx().channel().remoteAddress() instanceof InetSocketAddress a) {
            return broker.brokerAddress().endsWith(":" + a.getPort());
        }
        return false;
    }
}
