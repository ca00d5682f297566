package dev.lakestream.pulsar.cursor;

import dev.lakestream.pulsar.Errors;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import org.apache.bookkeeper.mledger.AsyncCallbacks.FindEntryCallback;
import org.apache.bookkeeper.mledger.AsyncCallbacks.ReadEntriesCallback;
import org.apache.bookkeeper.mledger.AsyncCallbacks.ReadEntryCallback;
import org.apache.bookkeeper.mledger.Entry;
import org.apache.bookkeeper.mledger.ManagedLedgerException;
import org.apache.bookkeeper.mledger.Position;

/**
 * Between the cursor's futures and Pulsar's callbacks: a future's outcome handed to a callback on the ledger's
 * executor (not on the store thread that completed it), and the callbacks the blocking API methods wait on.
 */
final class CursorCallbacks {

    private CursorCallbacks() {}

    /** Runs {@code onSuccess} or {@code onFailure} (with the error as a ManagedLedgerException) on {@code executor}. */
    static <T> void deliver(
            CompletableFuture<T> f,
            Executor executor,
            Consumer<T> onSuccess,
            Consumer<ManagedLedgerException> onFailure) {
        // the callback reports both outcomes to the caller's callback.
        var unused = f.whenCompleteAsync(
                (v, e) -> {
                    if (e != null) {
                        onFailure.accept(Errors.toMl(e));
                    } else {
                        onSuccess.accept(v);
                    }
                },
                executor);
    }

    static ReadEntriesCallback completing(CompletableFuture<List<Entry>> f) {
        return new ReadEntriesCallback() {
            @Override
            public void readEntriesComplete(List<Entry> entries, Object ctx) {
                f.complete(entries);
            }

            @Override
            public void readEntriesFailed(ManagedLedgerException exception, Object ctx) {
                f.completeExceptionally(exception);
            }
        };
    }

    static ReadEntryCallback completingOne(CompletableFuture<Entry> f) {
        return new ReadEntryCallback() {
            @Override
            public void readEntryComplete(Entry entry, Object ctx) {
                f.complete(entry);
            }

            @Override
            public void readEntryFailed(ManagedLedgerException exception, Object ctx) {
                f.completeExceptionally(exception);
            }
        };
    }

    static FindEntryCallback completingFind(CompletableFuture<Position> f) {
        return new FindEntryCallback() {
            @Override
            public void findEntryComplete(Position position, Object ctx) {
                f.complete(position);
            }

            @Override
            public void findEntryFailed(
                    ManagedLedgerException exception, Optional<Position> failedReadPosition, Object ctx) {
                f.completeExceptionally(exception);
            }
        };
    }
}
