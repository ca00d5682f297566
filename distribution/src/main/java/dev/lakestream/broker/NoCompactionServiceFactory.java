package dev.lakestream.broker;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.bookkeeper.mledger.Entry;
import org.apache.bookkeeper.mledger.Position;
import org.apache.pulsar.broker.PulsarService;
import org.apache.pulsar.compaction.CompactionServiceFactory;
import org.apache.pulsar.compaction.TopicCompactionService;

/**
 * A topic compaction service for brokers with no BookKeeper: every topic has nothing compacted, and a request to
 * compact fails with a clear message.
 *
 * <p>Pulsar's own {@code PulsarCompactionServiceFactory} asks for the default storage class's BookKeeper client as
 * each persistent topic loads; when the default class is Lakestream (diskless mode) that throws
 * {@code UnsupportedOperationException("BookKeeper client is not available")} and no persistent topic can load.
 * Configured as {@code compactionServiceFactoryClassName}, this factory lets topics load and serve everything but
 * compaction (compacted reads see the whole topic, since nothing is compacted). It stands until compaction is carried
 * by Lakestream itself.
 */
public final class NoCompactionServiceFactory implements CompactionServiceFactory {

    static final String NOT_SUPPORTED = "Topic compaction is not supported yet on a diskless Lakestream broker "
            + "(compactionServiceFactoryClassName=" + NoCompactionServiceFactory.class.getName() + ")";

    @Override
    public CompletableFuture<Void> initialize(PulsarService pulsarService) {
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletableFuture<TopicCompactionService> newTopicCompactionService(String topic) {
        return CompletableFuture.completedFuture(new NothingCompacted());
    }

    @Override
    public void close() {
    }

    /** The compaction service of one topic that never compacts. */
    static final class NothingCompacted implements TopicCompactionService {

        @Override
        public CompletableFuture<Void> compact() {
            return CompletableFuture.failedFuture(new UnsupportedOperationException(NOT_SUPPORTED));
        }

        @Override
        public CompletableFuture<List<Entry>> readCompactedEntries(Position startPosition, int numberOfEntriesToRead) {
            return CompletableFuture.completedFuture(List.of());
        }

        /** {@code null}: nothing compacted, so readers of the compacted view read the topic itself. */
        @Override
        public CompletableFuture<Position> getLastCompactedPosition() {
            return CompletableFuture.completedFuture(null);
        }

        /** {@code null}: no compacted entry has that publish time (there are none). */
        @Override
        public CompletableFuture<Position> findEntryByPublishTime(long publishTime) {
            return CompletableFuture.completedFuture(null);
        }

        /** {@code null}: there is no last compacted message. */
        @Override
        public CompletableFuture<MessagePosition> getLastMessagePosition() {
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public void close() {
        }
    }
}
