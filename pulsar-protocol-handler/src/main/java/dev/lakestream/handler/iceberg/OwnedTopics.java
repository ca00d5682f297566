package dev.lakestream.handler.iceberg;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import org.apache.pulsar.broker.PulsarService;
import org.apache.pulsar.broker.service.Topic;
import org.apache.pulsar.broker.service.persistent.PersistentTopic;
import org.apache.pulsar.common.naming.TopicName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which topic partitions this broker owns now, and which of them are to be materialized: it follows ownership by
 * looking at the broker's loaded topics (no broker callback involved), and decides enablement by topic property >
 * namespace property > broker default ({@link TopicEnablement}). Used on the host's control thread; it
 * blocks there on metadata reads (bounded), never on a broker thread.
 */
final class OwnedTopics {

    private static final Logger LOG = LoggerFactory.getLogger(OwnedTopics.class);
    private static final long METADATA_TIMEOUT_S = 10;

    /**
     * One look at the broker.
     *
     * @param owned every persistent, non-system topic partition loaded here (managed-ledger name to topic)
     * @param wanted those of them to materialize
     * @param unwanted those of them decided not to be materialized (not: whose properties cannot be read now, nor
     *     those not on Lakestream)
     */
    record Ownership(
            Map<String, PersistentTopic> owned,
            Map<String, PersistentTopic> wanted,
            Map<String, PersistentTopic> unwanted) {}

    private final PulsarService pulsar;
    private final TopicEnablement enablement;
    /** Problems already logged (a bad property value), so that each is logged once, not every check. */
    private final Set<String> warned = ConcurrentHashMap.newKeySet();

    OwnedTopics(PulsarService pulsar, TopicEnablement enablement) {
        this.pulsar = pulsar;
        this.enablement = enablement;
    }

    /**
     * @param skip managed ledgers never to materialize (not on Lakestream)
     * @param running whether a managed ledger is materialized now: one whose properties cannot be read now keeps
     *     running (and keeps its hold)
     */
    Ownership look(Predicate<String> skip, Predicate<String> running) {
        Map<String, PersistentTopic> wanted = new LinkedHashMap<>();
        Map<String, PersistentTopic> owned = new HashMap<>();
        Map<String, PersistentTopic> unwanted = new HashMap<>();
        for (Map.Entry<String, CompletableFuture<Optional<Topic>>> e :
                pulsar.getBrokerService().getTopics().entrySet()) {
            CompletableFuture<Optional<Topic>> f = e.getValue();
            if (!f.isDone() || f.isCompletedExceptionally()) {
                continue;
            }
            Optional<Topic> t = f.getNow(Optional.empty());
            if (t.isEmpty() || !(t.get() instanceof PersistentTopic pt)) {
                continue;
            }
            TopicName name = TopicName.get(e.getKey());
            if (pulsar.getBrokerService().isSystemTopic(name)) {
                continue;
            }
            String ml = pt.getManagedLedger().getName();
            owned.put(ml, pt);
            if (skip.test(ml)) {
                continue;
            }
            Boolean enabled = enabled(name, pt);
            if (enabled == null ? running.test(ml) : enabled) {
                wanted.put(ml, pt);
            } else if (enabled != null) {
                unwanted.put(ml, pt);
            }
        }
        return new Ownership(owned, wanted, unwanted);
    }

    /** Whether the topic is materialized; null when its properties cannot be read now. */
    private Boolean enabled(TopicName name, PersistentTopic topic) {
        try {
            return enablement
                    .enabled(name, topic.getManagedLedger().getProperties())
                    .get(METADATA_TIMEOUT_S, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IllegalArgumentException bad) {
                if (warned.add(bad.getMessage())) {
                    LOG.warn("Iceberg materializer: {}; the topic is not materialized", bad.getMessage());
                }
                return false;
            }
            LOG.warn(
                    "Iceberg materializer: cannot read the properties of {} ({}); trying again",
                    name,
                    e.getCause().toString());
            return null;
        } catch (TimeoutException e) {
            LOG.warn("Iceberg materializer: cannot read the properties of {} (timed out); trying again", name);
            return null;
        }
    }
}
