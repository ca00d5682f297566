package dev.lakestream.pulsar;

import com.google.common.collect.Range;
import dev.lakestream.pulsar.cursor.LakestreamManagedCursor;
import dev.lakestream.pulsar.ledger.LakestreamManagedLedger;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;
import org.apache.bookkeeper.mledger.AsyncCallbacks.CloseCallback;
import org.apache.bookkeeper.mledger.AsyncCallbacks.ReadEntriesCallback;
import org.apache.bookkeeper.mledger.AsyncCallbacks.ReadEntryCallback;
import org.apache.bookkeeper.mledger.Entry;
import org.apache.bookkeeper.mledger.ManagedCursor;
import org.apache.bookkeeper.mledger.ManagedLedgerException;
import org.apache.bookkeeper.mledger.Position;
import org.apache.bookkeeper.mledger.PositionFactory;
import org.apache.bookkeeper.mledger.ReadOnlyCursor;
import org.apache.bookkeeper.mledger.ReadOnlyManagedLedger;

/** A snapshot view of a managed ledger for readers that do not own it (no fencing, no writes). */
final class LakestreamReadOnlyManagedLedger implements ReadOnlyManagedLedger {

    private final LakestreamManagedLedger ml;

    LakestreamReadOnlyManagedLedger(LakestreamManagedLedger ml) {
        this.ml = ml;
    }

    @Override
    public void asyncReadEntry(Position position, ReadEntryCallback cb, Object ctx) {
        ml.asyncReadEntry(position, cb, ctx);
    }

    @Override
    public long getNumberOfEntries() {
        return ml.getNumberOfEntries();
    }

    @Override
    public ReadOnlyCursor createReadOnlyCursor(Position startPosition) {
        return cursor(ml, startPosition);
    }

    @Override
    public Map<String, String> getProperties() {
        return ml.getProperties();
    }

    static ReadOnlyCursor cursor(LakestreamManagedLedger ml, Position start) {
        Position markDelete;
        if (start == null || start.equals(PositionFactory.EARLIEST) || start.getLedgerId() < 0) {
            markDelete = PositionFactory.EARLIEST;
        } else if (start.equals(PositionFactory.LATEST)) {
            markDelete = PositionFactory.LATEST;
        } else {
            markDelete = ml.getPreviousPosition(start);
        }
        try {
            return new Cursor((LakestreamManagedCursor) ml.newNonDurableCursor(
                    markDelete,
                    "read-only-cursor",
                    org.apache.pulsar.common.api.proto.CommandSubscribe.InitialPosition.Latest,
                    false));
        } catch (ManagedLedgerException e) {
            throw new IllegalStateException(e);
        }
    }

    private static final class Cursor implements ReadOnlyCursor {
        private final LakestreamManagedCursor c;

        Cursor(LakestreamManagedCursor c) {
            this.c = c;
        }

        @Override
        public List<Entry> readEntries(int n) throws InterruptedException, ManagedLedgerException {
            return c.readEntries(n);
        }

        @Override
        public void asyncReadEntries(int n, ReadEntriesCallback cb, Object ctx, Position maxPosition) {
            c.asyncReadEntries(n, cb, ctx, maxPosition);
        }

        @Override
        public void asyncReadEntries(
                int n, long maxSizeBytes, ReadEntriesCallback cb, Object ctx, Position maxPosition) {
            c.asyncReadEntries(n, maxSizeBytes, cb, ctx, maxPosition);
        }

        @Override
        public Position getReadPosition() {
            return c.getReadPosition();
        }

        @Override
        public boolean hasMoreEntries() {
            return c.hasMoreEntries();
        }

        @Override
        public long getNumberOfEntries() {
            return c.getNumberOfEntries();
        }

        @Override
        public void skipEntries(int n) {
            Position p = c.getManagedLedger()
                    .getPositionAfterN(
                            c.getReadPosition(), n, org.apache.bookkeeper.mledger.PositionBound.startIncluded);
            // As Pulsar's read-only cursor: the n-th entry counting the current one, then the one after it.
            c.seek(p.getNext(), true);
        }

        @Override
        public Position findNewestMatching(ManagedCursor.FindPositionConstraint constraint, Predicate<Entry> condition)
                throws InterruptedException, ManagedLedgerException {
            return c.findNewestMatching(constraint, condition);
        }

        @Override
        public long getNumberOfEntries(Range<Position> range) {
            return c.getManagedLedger().getNumberOfEntries(range);
        }

        @Override
        public void close() throws InterruptedException, ManagedLedgerException {
            c.close();
        }

        @Override
        public void asyncClose(CloseCallback cb, Object ctx) {
            c.asyncClose(cb, ctx);
        }
    }

    static CompletableFuture<Void> none() {
        return CompletableFuture.completedFuture(null);
    }
}
