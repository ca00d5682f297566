package dev.lakestream.pulsar.ledger;

import dev.lakestream.core.metadata.UnexpectedVersionException;
import dev.lakestream.pulsar.common.Errors;
import dev.lakestream.pulsar.common.ManagedLedgerRecord;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.apache.bookkeeper.mledger.ManagedLedgerException;

/**
 * Keeps a managed ledger's current {@link ManagedLedgerRecord} and writes changes to it: each change
 * is applied to a copy, written by compare-and-set, and installed only once stored; writes run one at a time.
 *
 * <p>The record and the chain of writes are guarded by the ledger's state monitor (no lock of its own), since a lost
 * compare-and-set also moves the ledger's state to fenced.
 */
final class ManagedLedgerRecordWriter {

    private final String name;
    private final LedgerState state;
    private final LedgerServices services;
    private final boolean readOnly;

    // --- guarded by state (see LedgerState)
    private ManagedLedgerRecord record;
    private CompletableFuture<Void> metadataChain = CompletableFuture.completedFuture(null);

    ManagedLedgerRecordWriter(
            String name, LedgerState state, LedgerServices services, boolean readOnly, ManagedLedgerRecord record) {
        this.name = name;
        this.state = state;
        this.services = services;
        this.readOnly = readOnly;
        this.record = record;
    }

    /** The record as last stored; called under the ledger's state monitor, not to be changed. */
    ManagedLedgerRecord recordLocked() {
        return record;
    }

    /** Applies {@code change} to a copy of the record and writes it by compare-and-set; writes are serialised. */
    CompletableFuture<Void> update(Consumer<ManagedLedgerRecord> change) {
        CompletableFuture<Void> result = new CompletableFuture<>();
        synchronized (state) {
            metadataChain = metadataChain
                    .handle((v, e) -> null)
                    .thenCompose(v -> {
                        ManagedLedgerRecord copy;
                        synchronized (state) {
                            copy = record.copy();
                            change.accept(copy);
                        }
                        return copy.save(services.metadataStore(), services.metadataRoot())
                                .thenRun(() -> {
                                    synchronized (state) {
                                        record = copy;
                                    }
                                });
                    })
                    .whenComplete((v, e) -> {
                        if (e != null) {
                            Throwable c = Errors.unwrap(e);
                            if (c instanceof UnexpectedVersionException) {
                                synchronized (state) {
                                    if (state.is(LedgerState.Phase.OPEN) || state.is(LedgerState.Phase.WRITE_FAILED)) {
                                        state.fence();
                                    }
                                }
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
                    });
        }
        return result;
    }

    /** The ledger's properties as last stored, as an unmodifiable copy. */
    Map<String, String> properties() {
        synchronized (state) {
            return Collections.unmodifiableMap(new LinkedHashMap<>(record.properties));
        }
    }

    /** Changes the ledger's properties, kept in the record; completes with the properties as stored. */
    CompletableFuture<Map<String, String>> updateProperties(Consumer<Map<String, String>> change) {
        if (readOnly) {
            return CompletableFuture.failedFuture(
                    Errors.unsupported("setProperties", "the managed ledger is read-only"));
        }
        return update(r -> change.accept(r.properties)).thenApply(v -> properties());
    }

    /**
     * Completes when the writes started so far have finished, whatever their outcome (close waits on it). Reads the
     * chain without taking the lock, as close always has.
     */
    CompletableFuture<Void> settled() {
        return metadataChain.handle((x, e) -> null);
    }
}
