package dev.lakestream.pulsar.ledger;

import dev.lakestream.core.metadata.UnexpectedVersionException;
import dev.lakestream.pulsar.common.Errors;
import dev.lakestream.pulsar.common.ManagedLedgerRecord;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.apache.bookkeeper.mledger.ManagedLedgerException;

/**
 * Writes changes to a managed ledger's {@link ManagedLedgerRecord}: each change is applied to a copy, written by
 * compare-and-set, and installed only once stored; writes run one at a time. A lost compare-and-set fences the
 * ledger.
 *
 * <p>Takes no lock: the record as last stored and the chain of writes are kept by {@link LedgerState}, and each step
 * on them (chaining a write, making the changed copy, installing it, fencing) is one of its named transitions.
 */
final class ManagedLedgerRecordWriter {

    private final String name;
    private final LedgerState state;
    private final LedgerServices services;
    private final boolean readOnly;

    ManagedLedgerRecordWriter(
            String name, LedgerState state, LedgerServices services, boolean readOnly, ManagedLedgerRecord record) {
        this.name = name;
        this.state = state;
        this.services = services;
        this.readOnly = readOnly;
        state.recordStored(record);
    }

    /** Applies {@code change} to a copy of the record and writes it by compare-and-set; writes are serialised. */
    CompletableFuture<Void> update(Consumer<ManagedLedgerRecord> change) {
        CompletableFuture<Void> result = new CompletableFuture<>();
        state.chainRecordWrite(chain -> chain.handle((v, e) -> null)
                .thenCompose(v -> {
                    ManagedLedgerRecord copy = state.changedRecord(change);
                    return copy.save(services.metadataStore(), services.metadataRoot())
                            .thenRun(() -> state.recordStored(copy));
                })
                .whenComplete((v, e) -> {
                    if (e != null) {
                        Throwable c = Errors.unwrap(e);
                        if (c instanceof UnexpectedVersionException) {
                            state.fenceIfWritable();
                            result.completeExceptionally(
                                    new ManagedLedgerException.ManagedLedgerFencedByAnotherWriterException(
                                            "managed ledger "
                                                    + name + " metadata was changed by another owner: "
                                                    + c.getMessage()));
                        } else {
                            result.completeExceptionally(c);
                        }
                    } else {
                        result.complete(null);
                    }
                }));
        return result;
    }

    /** The ledger's properties as last stored, as an unmodifiable copy. */
    Map<String, String> properties() {
        return state.recordProperties();
    }

    /** Changes the ledger's properties, kept in the record; completes with the properties as stored. */
    CompletableFuture<Map<String, String>> updateProperties(Consumer<Map<String, String>> change) {
        if (readOnly) {
            return CompletableFuture.failedFuture(
                    Errors.unsupported("setProperties", "the managed ledger is read-only"));
        }
        return update(r -> change.accept(r.properties)).thenApply(v -> properties());
    }

    /** Completes when the writes started so far have finished, whatever their outcome (close waits on it). */
    CompletableFuture<Void> settled() {
        return state.recordWritesSettled();
    }
}
