package dev.lakestream.tests.nemesis;

import dev.lakestream.tests.BrokerCluster;
import dev.lakestream.tests.BrokerProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.pulsar.client.admin.PulsarAdmin;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries a {@link NemesisSchedule} out against a {@link BrokerCluster}: one thread per fault group, each sleeping
 * until its next fault, injecting it, holding it and healing it, so faults of different groups overlap as scheduled.
 * Every step is logged in a {@link FaultLog}; a step that fails (a broker that does not restart in time) is logged
 * and the run goes on. {@link #healAll()} puts everything right at the end whatever happened.
 */
final class Nemesis {

    private static final Logger LOG = LoggerFactory.getLogger(Nemesis.class);
    private static final Duration SLOW_S3 = Duration.ofMillis(1_500);
    private static final Duration HELD_FOREVER = Duration.ofHours(1);

    /** What the faults aim at: the run's topics (a broker fault hits one's owner), namespaces, the trimmed topic. */
    record Targets(List<String> topics, List<String> namespaces, String trimmedTopic) {}

    private final BrokerCluster cluster;
    private final Targets targets;
    private final FaultLog log;

    Nemesis(BrokerCluster cluster, Targets targets, FaultLog log) {
        this.cluster = cluster;
        this.targets = targets;
        this.log = log;
    }

    /** Runs the schedule from now; returns when every group has healed its last fault. */
    void run(NemesisSchedule schedule) throws InterruptedException {
        long start = System.nanoTime();
        List<Thread> threads = new ArrayList<>();
        for (FaultKind.Group g : FaultKind.Group.values()) {
            List<ScheduledFault> faults = schedule.of(g);
            threads.add(Thread.ofPlatform()
                    .name("nemesis-" + g.name().toLowerCase(java.util.Locale.ROOT))
                    .start(() -> runGroup(start, faults)));
        }
        for (Thread t : threads) {
            t.join();
        }
    }

    private void runGroup(long start, List<ScheduledFault> faults) {
        for (ScheduledFault f : faults) {
            long wait = start + TimeUnit.MILLISECONDS.toNanos(f.atMillis()) - System.nanoTime();
            try {
                if (wait > 0) {
                    TimeUnit.NANOSECONDS.sleep(wait);
                }
                runFault(f);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private void runFault(ScheduledFault f) throws InterruptedException {
        long injected = System.nanoTime();
        String what = f.kind().description;
        String error = null;
        Heal heal = () -> {};
        try {
            Injected i = inject(f);
            what = i.what();
            heal = i.heal();
        } catch (Exception e) {
            error = "inject: " + e;
            LOG.warn("nemesis: injecting {} failed", f, e);
        }
        LOG.info("nemesis: {} ({})", what, f);
        Thread.sleep(f.holdMillis());
        try {
            heal.run();
        } catch (Exception e) {
            error = (error == null ? "" : error + "; ") + "heal: " + e;
            LOG.warn("nemesis: healing {} failed", f, e);
        }
        log.add(new FaultLog.Entry(f, what, injected, System.nanoTime(), error));
    }

    @FunctionalInterface
    private interface Heal {
        void run() throws Exception;
    }

    private record Injected(String what, Heal heal) {}

    private Injected inject(ScheduledFault f) throws Exception {
        var proxy = cluster.s3Proxy();
        return switch (f.kind()) {
            case S3_RESET -> {
                proxy.dropNextRequests(Integer.MAX_VALUE);
                yield new Injected(f.kind().description, proxy::heal);
            }
            case S3_BLACKHOLE -> {
                proxy.delayAllRequests(HELD_FOREVER);
                yield new Injected(f.kind().description, proxy::heal);
            }
            case S3_SLOW -> {
                proxy.delayAllRequests(SLOW_S3);
                yield new Injected(f.kind().description, proxy::heal);
            }
            case S3_STORM -> {
                proxy.failAllRequests();
                yield new Injected(f.kind().description, proxy::heal);
            }
            case OXIA_RESTART -> {
                cluster.oxia().stop();
                yield new Injected(f.kind().description, () -> cluster.oxia().restart());
            }
            case OXIA_PAUSE -> {
                cluster.oxia().pause();
                yield new Injected(f.kind().description, () -> cluster.oxia().resume());
            }
            case BROKER_PAUSE -> {
                BrokerProcess b = ownerOf(pick(targets.topics(), f.target()), f.target());
                b.pause();
                yield new Injected("paused " + b.name(), b::resume);
            }
            case BROKER_KILL -> {
                BrokerProcess b = ownerOf(pick(targets.topics(), f.target()), f.target());
                b.kill();
                yield new Injected("killed " + b.name(), cluster::restartStoppedBrokers);
            }
            case UNLOAD -> {
                String ns = pick(targets.namespaces(), f.target());
                try (PulsarAdmin admin = admin()) {
                    admin.namespaces().unload(ns);
                }
                yield new Injected("unloaded " + ns, () -> {});
            }
            case TRIM -> {
                try (PulsarAdmin admin = admin()) {
                    admin.topics().trimTopic(targets.trimmedTopic());
                }
                yield new Injected("trimmed " + targets.trimmedTopic(), () -> {});
            }
        };
    }

    /** Puts everything right: S3 healed, Oxia running, every broker resumed and running. */
    void healAll() throws Exception {
        cluster.s3Proxy().heal();
        if (!cluster.oxia().isRunning()) {
            cluster.oxia().restart();
        } else {
            cluster.oxia().resume();
        }
        for (BrokerProcess b : cluster.brokers()) {
            if (b.isAlive()) {
                b.resume();
            }
        }
        cluster.restartStoppedBrokers();
    }

    private static <T> T pick(List<T> of, int target) {
        return of.get(Math.floorMod(target, of.size()));
    }

    /** The topic's owner; if the lookup fails (the cluster is faulty now), a running broker chosen by the target. */
    private BrokerProcess ownerOf(String topic, int target) {
        try (PulsarAdmin admin = admin()) {
            return cluster.broker(admin.lookups().lookupTopic(topic));
        } catch (Exception e) {
            List<BrokerProcess> alive =
                    cluster.brokers().stream().filter(BrokerProcess::isAlive).toList();
            LOG.info("nemesis: no owner of {} found ({}); taking a running broker", topic, e.toString());
            return pick(alive.isEmpty() ? cluster.brokers() : alive, target);
        }
    }

    private PulsarAdmin admin() throws Exception {
        return admin(BrokerCluster.webServiceUrl(
                cluster.brokers().stream().filter(BrokerProcess::isAlive).toList()));
    }

    /** An admin client at {@code httpUrl} with timeouts short enough for a faulty cluster. */
    static PulsarAdmin admin(String httpUrl) throws Exception {
        return PulsarAdmin.builder()
                .serviceHttpUrl(httpUrl)
                .connectionTimeout(5, TimeUnit.SECONDS)
                .readTimeout(20, TimeUnit.SECONDS)
                .requestTimeout(30, TimeUnit.SECONDS)
                .build();
    }
}
