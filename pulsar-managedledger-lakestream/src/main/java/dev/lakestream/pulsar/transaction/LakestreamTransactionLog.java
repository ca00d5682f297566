package dev.lakestream.pulsar.transaction;

import dev.lakestream.pulsar.ledger.LakestreamManagedLedger;
import io.netty.util.Timer;
import java.lang.reflect.Field;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.apache.bookkeeper.mledger.AsyncCallbacks;
import org.apache.bookkeeper.mledger.ManagedCursor;
import org.apache.bookkeeper.mledger.ManagedLedger;
import org.apache.bookkeeper.mledger.ManagedLedgerConfig;
import org.apache.bookkeeper.mledger.ManagedLedgerException;
import org.apache.bookkeeper.mledger.ManagedLedgerFactory;
import org.apache.bookkeeper.mledger.impl.ManagedLedgerImpl;
import org.apache.pulsar.common.api.proto.CommandSubscribe.InitialPosition;
import org.apache.pulsar.transaction.coordinator.TransactionCoordinatorID;
import org.apache.pulsar.transaction.coordinator.impl.MLTransactionLogImpl;
import org.apache.pulsar.transaction.coordinator.impl.TxnLogBufferedWriter;
import org.apache.pulsar.transaction.coordinator.impl.TxnLogBufferedWriterConfig;
import org.apache.pulsar.transaction.coordinator.impl.TxnLogBufferedWriterMetricsStats;
import org.apache.pulsar.transaction.coordinator.proto.TransactionMetadataEntry;

/**
 * Pulsar's transaction coordinator log on any managed ledger. Pulsar 5.0.1's {@link MLTransactionLogImpl#initialize()}
 * casts the opened ledger to {@link ManagedLedgerImpl} (for its executor), so a coordinator never starts on another
 * managed-ledger implementation: its open callback throws a {@link ClassCastException} that nobody logs, and clients
 * time out connecting to the coordinator. This subclass opens the log the same way, with the executor of the ledger it
 * got; everything else (append, replay, delete, close) is Pulsar's.
 *
 * <p>The fields {@code initialize} sets are private in Pulsar's class, so they are set reflectively; a Pulsar version
 * that renames them fails the coordinator's start with an error naming the field.
 */
final class LakestreamTransactionLog extends MLTransactionLogImpl {

    private static final String TRANSACTION_SUBSCRIPTION = "transaction.subscription";

    private final ManagedLedgerFactory factory;
    private final ManagedLedgerConfig config;
    private final TransactionCoordinatorID tcId;
    private final TxnLogBufferedWriterConfig writerConfig;
    private final Timer timer;
    private final TxnLogBufferedWriterMetricsStats metrics;

    LakestreamTransactionLog(
            TransactionCoordinatorID tcId,
            ManagedLedgerFactory factory,
            ManagedLedgerConfig config,
            TxnLogBufferedWriterConfig writerConfig,
            Timer timer,
            TxnLogBufferedWriterMetricsStats metrics) {
        super(tcId, factory, config, writerConfig, timer, metrics);
        this.factory = factory;
        this.config = config;
        this.tcId = tcId;
        this.writerConfig = writerConfig;
        this.timer = timer;
        this.metrics = metrics;
    }

    @Override
    public CompletableFuture<Void> initialize() {
        CompletableFuture<Void> done = new CompletableFuture<>();
        String name = getMLTransactionLogName(tcId).getPersistenceNamingEncoding();
        factory.asyncOpen(
                name,
                config,
                new AsyncCallbacks.OpenLedgerCallback() {
                    @Override
                    public void openLedgerComplete(ManagedLedger ledger, Object ctx) {
                        try {
                            set("managedLedger", ledger);
                            set(
                                    "bufferedWriter",
                                    new TxnLogBufferedWriter<>(
                                            ledger,
                                            executorOf(ledger),
                                            timer,
                                            serializer(),
                                            writerConfig.getBatchedWriteMaxRecords(),
                                            writerConfig.getBatchedWriteMaxSize(),
                                            writerConfig.getBatchedWriteMaxDelayInMillis(),
                                            writerConfig.isBatchEnabled(),
                                            metrics));
                        } catch (RuntimeException e) {
                            done.completeExceptionally(e);
                            return;
                        }
                        ledger.asyncOpenCursor(
                                TRANSACTION_SUBSCRIPTION,
                                InitialPosition.Earliest,
                                new AsyncCallbacks.OpenCursorCallback() {
                                    @Override
                                    public void openCursorComplete(ManagedCursor cursor, Object ctx) {
                                        try {
                                            set("cursor", cursor);
                                            done.complete(null);
                                        } catch (RuntimeException e) {
                                            done.completeExceptionally(e);
                                        }
                                    }

                                    @Override
                                    public void openCursorFailed(ManagedLedgerException e, Object ctx) {
                                        done.completeExceptionally(e);
                                    }
                                },
                                null);
                    }

                    @Override
                    public void openLedgerFailed(ManagedLedgerException e, Object ctx) {
                        done.completeExceptionally(e);
                    }
                },
                null,
                null);
        return done;
    }

    /** The ledger's own callback executor, so the buffered writer's work is ordered with the ledger's callbacks. */
    private static Executor executorOf(ManagedLedger ledger) {
        if (ledger instanceof LakestreamManagedLedger l) {
            return l.callbackExecutor();
        }
        if (ledger instanceof ManagedLedgerImpl l) {
            return l.getExecutor();
        }
        throw new IllegalStateException("transaction log " + ledger.getName() + ": no executor for managed ledger "
                + ledger.getClass().getName());
    }

    @SuppressWarnings("unchecked")
    private static TxnLogBufferedWriter.DataSerializer<TransactionMetadataEntry> serializer() {
        String cls = MLTransactionLogImpl.class.getName() + "$TransactionLogDataSerializer";
        try {
            Field f = Class.forName(cls).getDeclaredField("INSTANCE");
            f.setAccessible(true);
            return (TxnLogBufferedWriter.DataSerializer<TransactionMetadataEntry>) f.get(null);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException(
                    "transaction log: cannot read " + cls + ".INSTANCE of this Pulsar version", e);
        }
    }

    private void set(String field, Object value) {
        try {
            Field f = MLTransactionLogImpl.class.getDeclaredField(field);
            f.setAccessible(true);
            f.set(this, value);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException(
                    "transaction log " + tcId + ": cannot set MLTransactionLogImpl." + field
                            + " of this Pulsar version",
                    e);
        }
    }
}
