package dev.lakestream.pulsar.compaction;

import dev.lakestream.core.Lakestream;
import dev.lakestream.pulsar.LakestreamManagedLedgerStorage;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.pulsar.broker.PulsarService;
import org.apache.pulsar.broker.service.TopicEventsListener;
import org.apache.pulsar.broker.storage.ManagedLedgerStorage;
import org.apache.pulsar.common.naming.TopicName;
import org.apache.pulsar.compaction.Compactor;
import org.apache.pulsar.compaction.PulsarCompactionServiceFactory;
import org.apache.pulsar.compaction.TopicCompactionService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Topic compaction kept in Lakestream, for brokers whose topics live there ({@code compactionServiceFactoryClassName}).
 * Pulsar's own factory writes compacted ledgers to BookKeeper; this one writes each compacted view to a Lakestream
 * stream and records it on the topic's {@code __compaction} cursor. Honours {@code topicCompactionRetainNullKey}.
 * When a topic is deleted its compacted streams are deleted too.
 *
 * <p>It extends Pulsar's factory only because the broker looks for compaction statistics on that class's compactor
 * (see {@link CompactionStatsHolder}); nothing of Pulsar's compaction path is used.
 */
public final class LakestreamCompactionServiceFactory extends PulsarCompactionServiceFactory {

    private static final Logger LOG = LoggerFactory.getLogger(LakestreamCompactionServiceFactory.class);

    private PulsarService pulsar;
    private Lakestream log;
    private boolean retainNullKey;
    private CompactionStatsHolder stats;
    private final AtomicBoolean listening = new AtomicBoolean();

    @Override
    public CompletableFuture<Void> initialize(PulsarService pulsarService) {
        ManagedLedgerStorage storage = pulsarService.getManagedLedgerStorage();
        if (!(storage instanceof LakestreamManagedLedgerStorage ls) || ls.lakestream() == null) {
            return CompletableFuture.failedFuture(new IllegalStateException(getClass()
                            .getName()
                    + " compacts topics stored in Lakestream and needs managedLedgerStorageClassName="
                    + LakestreamManagedLedgerStorage.class.getName() + " (initialised from the broker's properties); "
                    + "this broker's storage is "
                    + (storage == null ? "not initialised" : storage.getClass().getName())));
        }
        // Pulsar's only keeps the service and fails only for a null one (checked above); it is already complete.
        var unused = super.initialize(pulsarService);
        this.pulsar = pulsarService;
        this.log = ls.lakestream();
        this.stats = new CompactionStatsHolder(pulsarService.getConfiguration());
        this.retainNullKey = pulsarService.getConfiguration().isTopicCompactionRetainNullKey();
        LOG.info("Lakestream topic compaction initialised (topicCompactionRetainNullKey={})", retainNullKey);
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletableFuture<TopicCompactionService> newTopicCompactionService(String topic) {
        if (pulsar == null) {
            return CompletableFuture.failedFuture(
                    new IllegalStateException(getClass().getSimpleName() + " is not initialised"));
        }
        listenForDeletes();
        return CompletableFuture.completedFuture(new LakestreamTopicCompactionService(
                topic,
                new BrokerCompactionTopic(pulsar, topic),
                streamsOf(topic),
                retainNullKey,
                pulsar.getCompactorExecutor(),
                stats.statistics()));
    }

    /** The holder of the compaction statistics the broker reports; null before {@link #initialize}. */
    @Override
    public Compactor getNullableCompactor() {
        return stats;
    }

    @Override
    public Compactor getCompactor() {
        return stats;
    }

    @Override
    protected Compactor newCompactor() {
        return stats;
    }

    private CompactedStreams streamsOf(String topic) {
        return new CompactedStreams(log, TopicName.get(topic).getPersistenceNamingEncoding());
    }

    /** Registered on first use: the broker service does not exist yet when the factory is initialised. */
    private void listenForDeletes() {
        if (pulsar.getBrokerService() != null && listening.compareAndSet(false, true)) {
            pulsar.getBrokerService().addTopicEventListener(this::onTopicEvent);
        }
    }

    private void onTopicEvent(
            String topic, TopicEventsListener.TopicEvent event, TopicEventsListener.EventStage stage, Throwable t) {
        if (event != TopicEventsListener.TopicEvent.DELETE
                || stage != TopicEventsListener.EventStage.SUCCESS
                || !TopicName.get(topic).isPersistent()) {
            return;
        }
        // the callback logs both outcomes.
        var unused = streamsOf(topic).deleteAllBut(-1).whenComplete((n, e) -> {
            if (e != null) {
                LOG.warn("Topic {} was deleted but its compacted streams could not be deleted", topic, e);
            } else if (n > 0) {
                LOG.info("Topic {} was deleted: deleted its {} compacted stream(s)", topic, n);
            }
        });
    }

    @Override
    public void close() {}
}
