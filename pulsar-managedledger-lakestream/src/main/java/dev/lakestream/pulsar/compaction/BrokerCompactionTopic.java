package dev.lakestream.pulsar.compaction;

import dev.lakestream.pulsar.ledger.LakestreamManagedLedger;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.bookkeeper.mledger.ManagedCursor;
import org.apache.bookkeeper.mledger.ManagedLedger;
import org.apache.pulsar.broker.PulsarService;
import org.apache.pulsar.broker.service.Topic;
import org.apache.pulsar.broker.service.persistent.PersistentSubscription;
import org.apache.pulsar.broker.service.persistent.PersistentTopic;
import org.apache.pulsar.common.api.proto.CommandSubscribe.InitialPosition;

/**
 * A topic loaded on this broker. The {@code __compaction} cursor is the topic's subscription of that name, created
 * through the topic (as Pulsar's compactor does) so the topic counts its backlog for the compaction threshold.
 */
final class BrokerCompactionTopic implements CompactionTopic {

    private final PulsarService pulsar;
    private final String topic;

    BrokerCompactionTopic(PulsarService pulsar, String topic) {
        this.pulsar = pulsar;
        this.topic = topic;
    }

    private CompletableFuture<PersistentTopic> persistentTopic() {
        Optional<Topic> t = pulsar.getBrokerService().getTopicReference(topic);
        if (t.isEmpty()) {
            return CompletableFuture.failedFuture(
                    new IllegalStateException("topic " + topic + " is not loaded on this broker"));
        }
        if (!(t.get() instanceof PersistentTopic pt)) {
            return CompletableFuture.failedFuture(new IllegalStateException(
                    "topic " + topic + " is not persistent: only persistent topics are compacted"));
        }
        return CompletableFuture.completedFuture(pt);
    }

    private static boolean onLakestream(PersistentTopic pt) {
        return pt.getManagedLedger() instanceof LakestreamManagedLedger;
    }

    /** The topic, which must be stored in Lakestream to be compacted here. */
    private CompletableFuture<PersistentTopic> lakestreamTopic() {
        return persistentTopic()
                .thenCompose(pt -> onLakestream(pt)
                        ? CompletableFuture.completedFuture(pt)
                        : CompletableFuture.failedFuture(new IllegalStateException("topic " + topic + " is stored in "
                                + pt.getManagedLedger().getClass().getName() + ", not Lakestream: "
                                + LakestreamCompactionServiceFactory.class.getSimpleName()
                                + " compacts Lakestream topics only")));
    }

    @Override
    public CompletableFuture<ManagedLedger> ledger() {
        return lakestreamTopic().thenApply(PersistentTopic::getManagedLedger);
    }

    @Override
    public CompletableFuture<Optional<ManagedCursor>> existingCursor() {
        return persistentTopic().thenApply(pt -> {
            if (!onLakestream(pt)) {
                // A BookKeeper topic of a hybrid broker: nothing compacted here, its readers read the topic.
                return Optional.<ManagedCursor>empty();
            }
            PersistentSubscription s = pt.getSubscription(CURSOR);
            if (s != null) {
                return Optional.of(s.getCursor());
            }
            for (ManagedCursor c : pt.getManagedLedger().getCursors()) {
                if (CURSOR.equals(c.getName())) {
                    return Optional.of(c);
                }
            }
            return Optional.empty();
        });
    }

    @Override
    public CompletableFuture<ManagedCursor> cursor() {
        return existingCursor()
                .thenCompose(c -> c.isPresent()
                        ? CompletableFuture.completedFuture(c.get())
                        : lakestreamTopic()
                                .thenCompose(pt -> pt.createSubscription(CURSOR, InitialPosition.Earliest, false, null))
                                .thenApply(s -> ((PersistentSubscription) s).getCursor()));
    }
}
