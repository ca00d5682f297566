package dev.lakestream.pulsar.ledger;

import dev.lakestream.core.metadata.MetadataStore;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;

/**
 * What a managed ledger uses of the factory that opened it, handed in instead of the factory: so this package never
 * names the factory and the dependency runs one way (factory -> ledger). The factory builds one value for all its
 * ledgers.
 *
 * @param metadataStore the Lakestream metadata store that keeps the ledgers' records and the ledger-id generator
 * @param metadataRoot the key prefix of this deployment's records in {@code metadataStore}
 * @param pool the threads the ledgers' serial executors run on
 * @param scheduler the timer of delayed tasks (a cursor's retried reads); its tasks only hand work to a ledger's
 *     executor
 * @param evict removes a closed ledger from the factory's open ledgers
 * @param deleteStorage deletes a ledger's data and metadata once it is closed
 */
public record LedgerServices(
        MetadataStore metadataStore,
        String metadataRoot,
        Executor pool,
        ScheduledExecutorService scheduler,
        Eviction evict,
        StorageDeletion deleteStorage) {

    /** Removes a ledger from its factory's open ledgers, unless another instance replaced it there. */
    @FunctionalInterface
    public interface Eviction {
        void evict(String name, LakestreamManagedLedger ledger);
    }

    /** Deletes a managed ledger's data and metadata (stream, catalog entry, record, broker node). */
    @FunctionalInterface
    public interface StorageDeletion {
        CompletableFuture<Void> delete(String name, long streamId);
    }
}
