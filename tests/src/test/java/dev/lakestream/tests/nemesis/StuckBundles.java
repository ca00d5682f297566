package dev.lakestream.tests.nemesis;

import dev.lakestream.tests.BrokerCluster;
import dev.lakestream.tests.BrokerProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.pulsar.client.admin.PulsarAdmin;
import org.apache.pulsar.common.policies.data.NamespaceOwnershipStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds namespace bundles that a broker still owns but keeps disabled after the faults healed, and frees them as an
 * operator would: unload again, else restart the broker. Pulsar 5.0.1 can leave a bundle so for good when an unload
 * races with a revalidation of the bundle's ownership lock after a metadata-store session event: releasing the lock
 * then fails with a bad version, and every lookup of the bundle's topics answers "is being unloaded" (finding 8 in
 * docs/reliability.md; Pulsar's ownership races, apache/pulsar#26197). That is Pulsar's coordination, not this
 * project's storage; the checks that follow judge the storage, and the count of bundles freed is reported beside them.
 */
final class StuckBundles {

    private static final Logger LOG = LoggerFactory.getLogger(StuckBundles.class);

    /** A normal unload disables its bundle for milliseconds; one disabled this long is stuck. */
    private static final Duration STUCK_AFTER = Duration.ofSeconds(30);

    private static final Duration AFTER_UNLOAD = Duration.ofSeconds(15);

    /** A bundle {@code name} ({@code tenant/ns/range}) that broker {@code owner} owns and keeps disabled. */
    record Stuck(BrokerProcess owner, String bundle) {

        String namespace() {
            return bundle.substring(0, bundle.lastIndexOf('/'));
        }

        String range() {
            return bundle.substring(bundle.lastIndexOf('/') + 1);
        }
    }

    private final BrokerCluster cluster;
    private final List<String> namespaces;
    private final FaultLog log;

    StuckBundles(BrokerCluster cluster, List<String> namespaces, FaultLog log) {
        this.cluster = cluster;
        this.namespaces = namespaces;
        this.log = log;
    }

    /**
     * Frees every bundle of the namespaces disabled for {@link #STUCK_AFTER} on a running broker, logging each as a
     * heal step (it moves topics as a fault does); returns how many (0 is the usual case, which costs one query per
     * broker).
     */
    int free() throws Exception {
        List<Stuck> stuck = disabledFor(STUCK_AFTER);
        if (stuck.isEmpty()) {
            return 0;
        }
        long from = System.nanoTime();
        for (Stuck s : stuck) {
            LOG.warn(
                    "nemesis: bundle {} disabled on {} for {} s after the faults healed (Pulsar's \"is being unloaded\""
                            + " for good); unloading it again",
                    s.bundle(),
                    s.owner().name(),
                    STUCK_AFTER.toSeconds());
            try (PulsarAdmin admin = Nemesis.admin("http://" + s.owner().webAddress())) {
                admin.namespaces().unloadNamespaceBundle(s.namespace(), s.range());
            } catch (Exception e) {
                LOG.warn(
                        "nemesis: unloading {} again on {} failed: {}",
                        s.bundle(),
                        s.owner().name(),
                        e.toString());
            }
        }
        Thread.sleep(AFTER_UNLOAD.toMillis());
        List<String> still = disabled().stream().map(Stuck::bundle).toList();
        // A broker holding several stuck bundles is restarted once.
        Set<BrokerProcess> restart = new LinkedHashSet<>();
        for (Stuck s : stuck) {
            if (still.contains(s.bundle()) && s.owner().isAlive()) {
                restart.add(s.owner());
            }
        }
        for (BrokerProcess b : restart) {
            LOG.warn("nemesis: bundles still disabled on {}; restarting the broker", b.name());
            b.kill();
        }
        cluster.restartStoppedBrokers();
        long to = System.nanoTime();
        for (Stuck s : stuck) {
            String how = restart.contains(s.owner()) ? ": broker restarted" : ": unloaded again";
            log.addHealStep(new FaultLog.HealStep(
                    "bundle " + s.bundle() + " stuck disabled on " + s.owner().name() + how, from, to));
        }
        return stuck.size();
    }

    /** The bundles disabled now and still after {@code window} (polled every second). */
    private List<Stuck> disabledFor(Duration window) throws Exception {
        List<Stuck> first = disabled();
        long deadline = System.nanoTime() + window.toNanos();
        List<Stuck> remaining = first;
        while (!remaining.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(1_000);
            List<Stuck> now = disabled();
            remaining = remaining.stream().filter(now::contains).toList();
        }
        return remaining;
    }

    /** Bundles of the namespaces that a running broker owns and has disabled, asked of each broker itself. */
    private List<Stuck> disabled() throws Exception {
        List<Stuck> out = new ArrayList<>();
        for (BrokerProcess b : cluster.brokers()) {
            if (!b.isAlive()) {
                continue;
            }
            Map<String, NamespaceOwnershipStatus> owned;
            try (PulsarAdmin admin = Nemesis.admin("http://" + b.webAddress())) {
                String clusterName = admin.clusters().getClusters().get(0);
                owned = admin.brokers().getOwnedNamespaces(clusterName, b.webAddress());
            } catch (Exception e) {
                LOG.info("nemesis: owned bundles of {} not known ({})", b.name(), e.toString());
                continue;
            }
            owned.forEach((bundle, status) -> {
                if (!status.is_active && namespaces.stream().anyMatch(ns -> bundle.startsWith(ns + "/"))) {
                    out.add(new Stuck(b, bundle));
                }
            });
        }
        return out;
    }
}
