package dev.lakestream.iceberg;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.jdbc.JdbcCatalog;

/**
 * Iceberg's real JdbcCatalog with faults injected into its table commits: the next data commit (a metadata change
 * that adds a snapshot) fails before reaching the database, or reaches it and loses its acknowledgement.
 */
final class FaultyJdbcCatalog extends JdbcCatalog {

    enum Fault {
        /** The commit is refused before it reaches the database. */
        FAIL_BEFORE,
        /** Nothing is known: the commit never reached the database, but the caller cannot tell. */
        UNKNOWN_NOT_LANDED,
        /** The commit landed, its acknowledgement was lost. */
        UNKNOWN_LANDED,
        /** The commit landed, then the client failed with some other error. */
        ERROR_AFTER_LANDING
    }

    private final AtomicReference<Fault> next = new AtomicReference<>();
    private final AtomicInteger refreshesUntilAction = new AtomicInteger();
    private final AtomicReference<Runnable> refreshAction = new AtomicReference<>();

    /**
     * Runs {@code action} just before the {@code nth} table read (refresh) from now of any table of this catalog:
     * another process acting at an exact point of this one's commit.
     */
    void beforeRefresh(int nth, Runnable action) {
        refreshesUntilAction.set(nth);
        refreshAction.set(action);
    }

    /** Injects {@code fault} into the next snapshot commit. */
    void injectIntoNextCommit(Fault fault) {
        next.set(fault);
    }

    boolean faultPending() {
        return next.get() != null;
    }

    @Override
    protected TableOperations newTableOps(TableIdentifier id) {
        TableOperations real = super.newTableOps(id);
        return new ForwardingTableOperations(real) {
            @Override
            public TableMetadata refresh() {
                if (refreshAction.get() != null && refreshesUntilAction.decrementAndGet() == 0) {
                    refreshAction.getAndSet(null).run();
                }
                return real.refresh();
            }

            @Override
            public void commit(TableMetadata base, TableMetadata metadata) {
                boolean addsSnapshot = metadata.currentSnapshot() != null
                        && (base == null
                                || base.currentSnapshot() == null
                                || metadata.currentSnapshot().snapshotId()
                                        != base.currentSnapshot().snapshotId());
                Fault f = addsSnapshot ? next.getAndSet(null) : null;
                if (f == Fault.FAIL_BEFORE) {
                    throw new CommitFailedException("injected: commit refused");
                }
                if (f == Fault.UNKNOWN_NOT_LANDED) {
                    throw new CommitStateUnknownException(new RuntimeException("injected: connection lost before"));
                }
                real.commit(base, metadata);
                if (f == Fault.UNKNOWN_LANDED) {
                    throw new CommitStateUnknownException(new RuntimeException("injected: acknowledgement lost"));
                }
                if (f == Fault.ERROR_AFTER_LANDING) {
                    throw new IllegalStateException("injected: failure after the commit landed");
                }
            }
        };
    }
}
