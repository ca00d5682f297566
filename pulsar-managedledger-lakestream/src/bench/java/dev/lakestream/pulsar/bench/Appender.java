package dev.lakestream.pulsar.bench;

import dev.lakestream.core.StreamLog;
import io.netty.buffer.ByteBuf;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.bookkeeper.mledger.AsyncCallbacks.AddEntryCallback;
import org.apache.bookkeeper.mledger.ManagedLedger;
import org.apache.bookkeeper.mledger.ManagedLedgerException;
import org.apache.bookkeeper.mledger.Position;

/** One add of one entry to stream {@code i} of a set: the core log or the managed ledger, the same workload. */
interface Appender {

    int streams();

    /** Adds {@code entry} (the caller keeps its reference and releases it); completes when durable. */
    CompletableFuture<Void> append(int i, ByteBuf entry);

    static Appender core(List<StreamLog> streams) {
        return new Appender() {
            public int streams() {
                return streams.size();
            }

            public CompletableFuture<Void> append(int i, ByteBuf entry) {
                return streams.get(i).append(1, entry).thenApply(r -> null);
            }
        };
    }

    static Appender managedLedger(List<ManagedLedger> ledgers) {
        return new Appender() {
            public int streams() {
                return ledgers.size();
            }

            public CompletableFuture<Void> append(int i, ByteBuf entry) {
                CompletableFuture<Void> done = new CompletableFuture<>();
                ledgers.get(i)
                        .asyncAddEntry(
                                entry,
                                new AddEntryCallback() {
                                    @Override
                                    public void addComplete(Position position, ByteBuf data, Object ctx) {
                                        done.complete(null);
                                    }

                                    @Override
                                    public void addFailed(ManagedLedgerException e, Object ctx) {
                                        done.completeExceptionally(e);
                                    }
                                },
                                null);
                return done;
            }
        };
    }
}
