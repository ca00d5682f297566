package dev.lakestream.handler.iceberg;

import dev.lakestream.pulsar.InitialHolds;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.pulsar.broker.PulsarService;
import org.apache.pulsar.common.naming.TopicName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * With {@code lakestream.iceberg.retainUntilMaterialized}: a new topic that is to be materialized is held by the
 * materializer from its first entry, before the host's next topic check finds it (see {@link InitialHolds}). When
 * the decision cannot be made at creation (the namespace's policies cannot be read), the topic is held too, and the
 * host releases the hold once it decides the topic is not materialized ({@link HostedRunners#follow}).
 */
final class NewTopicHolds implements InitialHolds {

    private static final Logger LOG = LoggerFactory.getLogger(NewTopicHolds.class);
    private static final long METADATA_TIMEOUT_S = 10;
    private static final Set<String> HELD = Set.of(HostedRunners.HOLDER);

    private final PulsarService pulsar;
    private final TopicEnablement enablement;

    NewTopicHolds(PulsarService pulsar, TopicEnablement enablement) {
        this.pulsar = pulsar;
        this.enablement = enablement;
    }

    @Override
    public CompletableFuture<Set<String>> holders(String managedLedger, Map<String, String> properties) {
        TopicName name;
        try {
            name = TopicName.get(TopicName.fromPersistenceNamingEncoding(managedLedger));
        } catch (RuntimeException e) {
            return CompletableFuture.completedFuture(Set.of()); // not a topic's ledger (none is materialized)
        }
        if (!name.isPersistent() || pulsar.getBrokerService().isSystemTopic(name)) {
            return CompletableFuture.completedFuture(Set.of());
        }
        return enablement
                .enabled(name, properties)
                .orTimeout(METADATA_TIMEOUT_S, TimeUnit.SECONDS)
                .handle((enabled, e) -> {
                    if (e == null) {
                        return enabled ? HELD : Set.<String>of();
                    }
                    Throwable cause = e.getCause() != null ? e.getCause() : e;
                    if (cause instanceof IllegalArgumentException) {
                        return Set.<String>of(); // a bad property value: not materialized (the host says so)
                    }
                    LOG.info(
                            "Iceberg materializer: holding new topic {} until its properties can be read ({})",
                            name,
                            cause.toString());
                    return HELD;
                });
    }
}
