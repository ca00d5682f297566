package dev.lakestream.pulsar.cursor;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.bookkeeper.mledger.AsyncCallbacks.FindEntryCallback;
import org.apache.bookkeeper.mledger.AsyncCallbacks.ReadEntriesCallback;
import org.apache.bookkeeper.mledger.AsyncCallbacks.ReadEntryCallback;
import org.apache.bookkeeper.mledger.Entry;
import org.apache.bookkeeper.mledger.ManagedLedgerException;
import org.apache.bookkeeper.mledger.Position;

/** The callbacks the cursor's blocking API methods wait on: each completes a future with the callback's outcome. */
final class CursorCallbacks {

    private CursorCallbacks() {}

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
