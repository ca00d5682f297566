package dev.lakestream.pulsar;

import io.netty.buffer.ByteBuf;
import java.util.concurrent.CompletableFuture;
import org.apache.bookkeeper.mledger.AsyncCallbacks.AddEntryCallback;
import org.apache.bookkeeper.mledger.AsyncCallbacks.CloseCallback;
import org.apache.bookkeeper.mledger.AsyncCallbacks.DeleteLedgerCallback;
import org.apache.bookkeeper.mledger.AsyncCallbacks.TerminateCallback;
import org.apache.bookkeeper.mledger.ManagedLedger;
import org.apache.bookkeeper.mledger.ManagedLedgerException;
import org.apache.bookkeeper.mledger.Position;

/**
 * The blocking forms of a managed ledger's callback calls: each makes the asynchronous call with a callback that
 * completes a future, then waits for it with {@link LakestreamManagedLedger.Sync#await}. Not for callback threads.
 */
final class BlockingCalls {

    private BlockingCalls() {}

    static Position addEntry(ManagedLedger ml, ByteBuf data, int numberOfMessages)
            throws InterruptedException, ManagedLedgerException {
        CompletableFuture<Position> f = new CompletableFuture<>();
        ml.asyncAddEntry(data, numberOfMessages, new AddEntryCallback() {
            @Override
            public void addComplete(Position position, ByteBuf entryData, Object ctx) {
                f.complete(position);
            }

            @Override
            public void addFailed(ManagedLedgerException exception, Object ctx) {
                f.completeExceptionally(exception);
            }
        }, null);
        return LakestreamManagedLedger.Sync.await(f);
    }

    static Position terminate(ManagedLedger ml) throws InterruptedException, ManagedLedgerException {
        CompletableFuture<Position> f = new CompletableFuture<>();
        ml.asyncTerminate(new TerminateCallback() {
            @Override
            public void terminateComplete(Position lastCommittedPosition, Object ctx) {
                f.complete(lastCommittedPosition);
            }

            @Override
            public void terminateFailed(ManagedLedgerException exception, Object ctx) {
                f.completeExceptionally(exception);
            }
        }, null);
        return LakestreamManagedLedger.Sync.await(f);
    }

    static void close(ManagedLedger ml) throws InterruptedException, ManagedLedgerException {
        CompletableFuture<Void> f = new CompletableFuture<>();
        ml.asyncClose(new CloseCallback() {
            @Override
            public void closeComplete(Object ctx) {
                f.complete(null);
            }

            @Override
            public void closeFailed(ManagedLedgerException exception, Object ctx) {
                f.completeExceptionally(exception);
            }
        }, null);
        LakestreamManagedLedger.Sync.await(f);
    }

    static void delete(ManagedLedger ml) throws InterruptedException, ManagedLedgerException {
        CompletableFuture<Void> f = new CompletableFuture<>();
        ml.asyncDelete(new DeleteLedgerCallback() {
            @Override
            public void deleteLedgerComplete(Object ctx) {
                f.complete(null);
            }

            @Override
            public void deleteLedgerFailed(ManagedLedgerException exception, Object ctx) {
                f.completeExceptionally(exception);
            }
        }, null);
        LakestreamManagedLedger.Sync.await(f);
    }
}
