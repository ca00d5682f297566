package dev.lakestream.pulsar.ledger;

import dev.lakestream.pulsar.common.Sync;
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
 * The blocking forms of a managed ledger's callback calls: each makes the asynchronous call with a {@link Waiter} as
 * its callback, then waits for it with {@link Sync#await}. Not for callback threads.
 */
final class BlockingCalls {

    private BlockingCalls() {}

    static Position addEntry(ManagedLedger ml, ByteBuf data, int numberOfMessages)
            throws InterruptedException, ManagedLedgerException {
        Waiter w = new Waiter();
        ml.asyncAddEntry(data, numberOfMessages, w, null);
        return Sync.await(w);
    }

    static Position terminate(ManagedLedger ml) throws InterruptedException, ManagedLedgerException {
        Waiter w = new Waiter();
        ml.asyncTerminate(w, null);
        return Sync.await(w);
    }

    static void close(ManagedLedger ml) throws InterruptedException, ManagedLedgerException {
        Waiter w = new Waiter();
        ml.asyncClose(w, null);
        Sync.await(w);
    }

    static void delete(ManagedLedger ml) throws InterruptedException, ManagedLedgerException {
        Waiter w = new Waiter();
        ml.asyncDelete(w, null);
        Sync.await(w);
    }

    /** One callback for the four calls: completes with the position (add, terminate) or null, or the failure. */
    private static final class Waiter extends CompletableFuture<Position>
            implements AddEntryCallback, TerminateCallback, CloseCallback, DeleteLedgerCallback {

        @Override
        public void addComplete(Position position, ByteBuf entryData, Object ctx) {
            complete(position);
        }

        @Override
        public void addFailed(ManagedLedgerException exception, Object ctx) {
            completeExceptionally(exception);
        }

        @Override
        public void terminateComplete(Position lastCommittedPosition, Object ctx) {
            complete(lastCommittedPosition);
        }

        @Override
        public void terminateFailed(ManagedLedgerException exception, Object ctx) {
            completeExceptionally(exception);
        }

        @Override
        public void closeComplete(Object ctx) {
            complete(null);
        }

        @Override
        public void closeFailed(ManagedLedgerException exception, Object ctx) {
            completeExceptionally(exception);
        }

        @Override
        public void deleteLedgerComplete(Object ctx) {
            complete(null);
        }

        @Override
        public void deleteLedgerFailed(ManagedLedgerException exception, Object ctx) {
            completeExceptionally(exception);
        }
    }
}
