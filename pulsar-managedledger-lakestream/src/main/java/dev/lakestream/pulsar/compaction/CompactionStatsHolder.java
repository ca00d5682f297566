package dev.lakestream.pulsar.compaction;

import java.util.concurrent.CompletableFuture;
import org.apache.bookkeeper.client.BookKeeper;
import org.apache.pulsar.broker.ServiceConfiguration;
import org.apache.pulsar.client.api.RawReader;
import org.apache.pulsar.compaction.Compactor;
import org.apache.pulsar.compaction.CompactorMXBeanImpl;

/**
 * Where the broker finds compaction statistics for Lakestream topics. Pulsar reads them (the {@code compaction} section
 * of topic stats, the {@code pulsar_compaction_*} metrics, their removal when a topic is deleted) from the
 * {@link Compactor} of a {@code PulsarCompactionServiceFactory}, and from nowhere else; so this is a compactor that
 * only holds them. Runs are {@link CompactionRun}s, which record into {@link #statistics()}. Pulsar's own compaction
 * path (a raw reader over the topic, output to BookKeeper) is not available through it.
 */
final class CompactionStatsHolder extends Compactor {

    CompactionStatsHolder(ServiceConfiguration conf) {
        // No client, BookKeeper or executor: compact() below never reads a topic, writes a ledger or schedules work.
        super(conf, null, null, null);
    }

    /** The statistics the broker reports; {@link CompactionRun} records into them. */
    CompactorMXBeanImpl statistics() {
        return mxBean;
    }

    @Override
    public CompletableFuture<Long> compact(String topic) {
        return CompletableFuture.failedFuture(unsupported(topic));
    }

    @Override
    protected CompletableFuture<Long> doCompaction(RawReader reader, BookKeeper bk) {
        return CompletableFuture.failedFuture(unsupported(reader.getTopic()));
    }

    private static UnsupportedOperationException unsupported(String topic) {
        return new UnsupportedOperationException("Compactor.compact(" + topic + ") is not supported with "
                + LakestreamCompactionServiceFactory.class.getSimpleName() + ": it would compact into a BookKeeper "
                + "ledger; Lakestream topics are compacted by their topic compaction service (pulsar-admin topics "
                + "compact, or the compaction threshold)");
    }
}
