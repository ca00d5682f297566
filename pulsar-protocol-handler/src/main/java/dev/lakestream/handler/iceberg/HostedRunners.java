package dev.lakestream.handler.iceberg;

import dev.lakestream.core.Lakestream;
import dev.lakestream.core.catalog.StreamInfo;
import dev.lakestream.iceberg.HostConfig;
import dev.lakestream.iceberg.MaterializerConfig;
import dev.lakestream.iceberg.MaterializerRunner;
import dev.lakestream.iceberg.Materializers;
import dev.lakestream.pulsar.ledger.LakestreamManagedLedger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.pulsar.broker.service.persistent.PersistentTopic;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The runners of the topic partitions this broker materializes, and their retention holds: starts a runner (after
 * its hold is in place), moves holds up after commits, stops a runner without blocking (committing what it has).
 * Changed only on the host's control thread ({@code control}); {@link #all()} may be read from anywhere.
 */
final class HostedRunners {

    private static final Logger LOG = LoggerFactory.getLogger(HostedRunners.class);
    /** The holder name of this materializer's retention holds. */
    static final String HOLDER = "iceberg";

    private static final long METADATA_TIMEOUT_S = 10;

    private final Lakestream log;
    private final HostConfig host;
    private final MaterializerConfig config;
    private final Materializers materializers;
    private final ScheduledExecutorService pool;
    private final Executor control;
    /** Keyed by managed-ledger name. */
    private final Map<String, HostedTopic> hosted = new ConcurrentHashMap<>();
    /** Managed ledgers of owned topics that are not on Lakestream (hybrid mode): nothing to materialize. */
    private final Set<String> notOnLakestream = ConcurrentHashMap.newKeySet();
    /**
     * Owned topics decided not to be materialized whose hold is known to be gone (a new topic may have been given
     * one at creation, {@link NewTopicHolds}): released once per load of the topic, not at every check.
     */
    private final Map<String, PersistentTopic> unheld = new HashMap<>();

    HostedRunners(
            Lakestream log,
            HostConfig host,
            MaterializerConfig config,
            Materializers materializers,
            ScheduledExecutorService pool,
            Executor control) {
        this.log = log;
        this.host = host;
        this.config = config;
        this.materializers = materializers;
        this.pool = pool;
        this.control = control;
    }

    List<HostedTopic> all() {
        return List.copyOf(hosted.values());
    }

    /** Managed-ledger name to topic name of every partition materialized here. */
    Map<String, String> topics() {
        Map<String, String> m = new LinkedHashMap<>();
        hosted.forEach((k, v) -> m.put(k, v.topicName));
        return m;
    }

    boolean isRunning(String managedLedger) {
        return hosted.containsKey(managedLedger);
    }

    boolean isNotOnLakestream(String managedLedger) {
        return notOnLakestream.contains(managedLedger);
    }

    /** Stops what is no longer owned or wanted, starts what is newly wanted, and moves the holds up. */
    @SuppressWarnings("ReferenceEquality") // a topic unloaded and loaded again is a new PersistentTopic object
    void follow(OwnedTopics.Ownership now) {
        for (HostedTopic h : all()) {
            if (h.closing != null) {
                continue;
            }
            PersistentTopic owned = now.owned().get(h.stream.name());
            if (owned == null || owned != h.brokerTopic) {
                stop(h, false); // unloaded (perhaps loaded again since): the next owner takes over
            } else if (!now.wanted().containsKey(h.stream.name())) {
                stop(h, true); // still owned but disabled: the hold goes, the table stays
            }
        }
        for (Map.Entry<String, PersistentTopic> w : now.wanted().entrySet()) {
            if (!hosted.containsKey(w.getKey())) {
                start(w.getKey(), w.getValue());
            }
        }
        for (HostedTopic h : hosted.values()) {
            if (h.closing == null) {
                updateHold(h);
            }
        }
        releaseUnwanted(now.unwanted());
        for (HostedTopic h : hosted.values()) {
            h.runner.warnIfStepRunsPast(MaterializerRunner.STUCK_STEP);
        }
    }

    /**
     * Releases the hold of each owned topic decided not to be materialized, once per load: a hold it was given at
     * creation would otherwise keep its retention from trimming for good.
     */
    @SuppressWarnings("ReferenceEquality") // a topic unloaded and loaded again is a new PersistentTopic object
    private void releaseUnwanted(Map<String, PersistentTopic> unwanted) {
        unheld.entrySet().removeIf(e -> unwanted.get(e.getKey()) != e.getValue());
        for (Map.Entry<String, PersistentTopic> u : unwanted.entrySet()) {
            String ml = u.getKey();
            if (unheld.containsKey(ml) || hosted.containsKey(ml)) {
                continue; // released already, or its runner is still closing (that releases it)
            }
            if (!(u.getValue().getManagedLedger() instanceof LakestreamManagedLedger ledger)) {
                continue; // another storage (hybrid mode): no holds
            }
            PersistentTopic topic = u.getValue();
            // Ignoring the returned future is right: a failure is logged and the release is tried at the next check.
            var unused = log.retentionHolds()
                    .release(ledger.stream().id(), HOLDER)
                    .whenCompleteAsync(
                            (released, e) -> {
                                if (e != null) {
                                    LOG.warn(
                                            "Iceberg materializer: releasing the retention hold of {} failed ({});"
                                                    + " trying again",
                                            topic.getName(),
                                            e.toString());
                                } else {
                                    unheld.put(ml, topic);
                                    if (released) {
                                        LOG.info(
                                                "Iceberg materializer: {} is not materialized; its retention hold"
                                                        + " is released",
                                                topic.getName());
                                    }
                                }
                            },
                            control);
        }
    }

    private void start(String managedLedger, PersistentTopic topic) {
        String name = topic.getName();
        Optional<StreamInfo> stream;
        try {
            stream = log.catalog()
                    .lookup(Materializers.MANAGED_LEDGERS, managedLedger)
                    .get(METADATA_TIMEOUT_S, TimeUnit.SECONDS);
        } catch (Exception e) {
            LOG.warn("Iceberg materializer: cannot look up the stream of {} ({}); trying again", name, e.toString());
            return;
        }
        if (stream.isEmpty() || stream.get().deleted()) {
            // A topic on another storage class (hybrid mode): its entries are not in Lakestream.
            notOnLakestream.add(managedLedger);
            LOG.info("Iceberg materializer: {} is not stored on Lakestream; it is not materialized", name);
            return;
        }
        HostedTopic h = new HostedTopic(
                name,
                stream.get(),
                new MaterializerRunner(materializers.materializer(stream.get()), config.pollInterval(), pool),
                topic);
        if (!initialHold(h)) {
            return; // without its hold retention could trim what the table lacks: not before it is in place
        }
        hosted.put(managedLedger, h);
        h.runner.start();
        LOG.info("Iceberg materializer: materializing {} into table {}", name, h.table());
    }

    /**
     * Before the runner starts: with retainUntilMaterialized, a hold at the stream's start unless the stream has
     * one already (kept by the previous owner at its table's committed offset); without, no hold.
     */
    private boolean initialHold(HostedTopic h) {
        long id = h.stream.id();
        try {
            if (!host.retainUntilMaterialized()) {
                log.retentionHolds().release(id, HOLDER).get(METADATA_TIMEOUT_S, TimeUnit.SECONDS);
                return true;
            }
            OptionalLong existing = log.retentionHolds().get(id, HOLDER).get(METADATA_TIMEOUT_S, TimeUnit.SECONDS);
            if (existing.isPresent()) {
                h.heldOffset = existing.getAsLong();
            } else {
                long start = log.stream(h.stream).startOffset().get(METADATA_TIMEOUT_S, TimeUnit.SECONDS);
                log.retentionHolds().hold(id, HOLDER, start).get(METADATA_TIMEOUT_S, TimeUnit.SECONDS);
                h.heldOffset = start;
            }
            return true;
        } catch (Exception e) {
            LOG.warn(
                    "Iceberg materializer: cannot set the retention hold of {} ({}); trying again",
                    h.topicName,
                    e.toString());
            return false;
        }
    }

    /** Moves the hold up to the table's committed offset (asynchronously; a failed write is retried next check). */
    private void updateHold(HostedTopic h) {
        // Ignoring the returned future is right: its failure is logged here and the write is retried next check.
        var unused = writeHold(h).whenComplete((v, e) -> {
            if (e != null) {
                LOG.warn(
                        "Iceberg materializer: moving the retention hold of {} failed ({}); trying again",
                        h.topicName,
                        e.toString());
            }
        });
    }

    private CompletableFuture<Void> writeHold(HostedTopic h) {
        long committed = h.status().committedOffset();
        if (!host.retainUntilMaterialized() || committed < 0 || committed == h.heldOffset) {
            return CompletableFuture.completedFuture(null);
        }
        return log.retentionHolds().hold(h.stream.id(), HOLDER, committed).thenRun(() -> h.heldOffset = committed);
    }

    /**
     * Closes the runner (committing what it has) without blocking. Ownership lost: the hold moves to the final
     * committed offset and stays for the next owner. Disabled or deleted: the hold goes (the table stays).
     */
    private void stop(HostedTopic h, boolean disabled) {
        LOG.info(
                "Iceberg materializer: stopping {} ({})",
                h.topicName,
                disabled ? "materialization disabled" : "no longer owned by this broker");
        h.closing = h.runner
                .closeAsync()
                .exceptionally(e -> null)
                .thenCompose(v -> log.catalog().lookup(Materializers.MANAGED_LEDGERS, h.stream.name()))
                .thenCompose(now -> disabled || now.isEmpty() || now.get().deleted()
                        // disabled, or the topic was deleted (with its holds): no hold
                        ? log.retentionHolds().release(h.stream.id(), HOLDER).<Void>thenApply(b -> null)
                        : writeHold(h))
                .whenCompleteAsync(
                        (v, e) -> {
                            if (e != null) {
                                LOG.warn(
                                        "Iceberg materializer: the retention hold of {} was not updated at its stop",
                                        h.topicName,
                                        e);
                            }
                            hosted.remove(h.stream.name(), h);
                        },
                        control);
    }

    /** On the control thread: closes every runner (each commits what it has); completes when all are closed. */
    CompletableFuture<Void> closeAll() {
        List<CompletableFuture<Void>> futures = new ArrayList<>();
        for (HostedTopic h : hosted.values()) {
            futures.add(h.closing != null ? h.closing : h.runner.closeAsync());
        }
        return CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new));
    }
}
