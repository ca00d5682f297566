package dev.lakestream.pulsar.transaction;

import io.netty.util.Timer;
import java.lang.reflect.Field;
import java.util.concurrent.CompletableFuture;
import org.apache.bookkeeper.mledger.ManagedLedgerConfig;
import org.apache.bookkeeper.mledger.ManagedLedgerFactory;
import org.apache.pulsar.transaction.coordinator.TransactionCoordinatorID;
import org.apache.pulsar.transaction.coordinator.TransactionMetadataStore;
import org.apache.pulsar.transaction.coordinator.TransactionMetadataStoreProvider;
import org.apache.pulsar.transaction.coordinator.TransactionRecoverTracker;
import org.apache.pulsar.transaction.coordinator.TransactionTimeoutTracker;
import org.apache.pulsar.transaction.coordinator.impl.DisabledTxnLogBufferedWriterMetricsStats;
import org.apache.pulsar.transaction.coordinator.impl.MLTransactionMetadataStore;
import org.apache.pulsar.transaction.coordinator.impl.MLTransactionMetadataStoreProvider;
import org.apache.pulsar.transaction.coordinator.impl.MLTransactionSequenceIdGenerator;
import org.apache.pulsar.transaction.coordinator.impl.TxnLogBufferedWriterConfig;
import org.apache.pulsar.transaction.coordinator.impl.TxnLogBufferedWriterMetricsStats;

/**
 * The transaction coordinator's metadata store for a broker on Lakestream (broker setting
 * {@code transactionMetadataStoreProviderClassName}). The same store as Pulsar's
 * {@link MLTransactionMetadataStoreProvider} (a managed-ledger log, the sequence-id interceptor, the metadata store),
 * with a log that opens on any managed ledger ({@link LakestreamTransactionLog}).
 */
public class LakestreamTransactionMetadataStoreProvider implements TransactionMetadataStoreProvider {

    @Override
    public CompletableFuture<TransactionMetadataStore> openStore(
            TransactionCoordinatorID tcId,
            ManagedLedgerFactory factory,
            ManagedLedgerConfig config,
            TransactionTimeoutTracker timeoutTracker,
            TransactionRecoverTracker recoverTracker,
            long maxActiveTransactionsPerCoordinator,
            TxnLogBufferedWriterConfig writerConfig,
            Timer timer) {
        MLTransactionSequenceIdGenerator sequenceIds = new MLTransactionSequenceIdGenerator();
        config.setManagedLedgerInterceptor(sequenceIds);
        LakestreamTransactionLog txnLog =
                new LakestreamTransactionLog(tcId, factory, config, writerConfig, timer, writerMetrics());
        return txnLog.initialize()
                .thenCompose(v -> new MLTransactionMetadataStore(
                                tcId, txnLog, timeoutTracker, sequenceIds, maxActiveTransactionsPerCoordinator)
                        .init(recoverTracker));
    }

    /** The buffered-writer metrics the broker registered on Pulsar's provider (disabled ones if it did not). */
    private static TxnLogBufferedWriterMetricsStats writerMetrics() {
        try {
            Field f = MLTransactionMetadataStoreProvider.class.getDeclaredField("bufferedWriterMetrics");
            f.setAccessible(true);
            Object m = f.get(null);
            if (m instanceof TxnLogBufferedWriterMetricsStats stats) {
                return stats;
            }
        } catch (ReflectiveOperationException | RuntimeException e) {
            // A Pulsar version without the field: run without the buffered writer's metrics.
        }
        return DisabledTxnLogBufferedWriterMetricsStats.DISABLED_BUFFERED_WRITER_METRICS;
    }
}
