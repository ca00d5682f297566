package dev.lakestream.iceberg;

import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;

/**
 * One version of a table, read once, that a commit is checked against and then built on.
 *
 * <p>Why: Iceberg's snapshot producers refresh the table when they build a snapshot, so an append built after a
 * check would silently rebase onto whatever another process committed in between, and commit offsets that process
 * already committed. Here the append's operations do not move on refresh until the commit: the new snapshot's parent is
 * exactly the version that was checked, and the catalog's compare-and-swap refuses the commit
 * ({@code CommitFailedException}) if the table moved since. After the commit they refresh as usual, so Iceberg's
 * post-commit clean-up sees the committed snapshot.
 */
final class ValidatedBase {

    private final Table table;

    private ValidatedBase(Table table) {
        this.table = table;
    }

    /** Refreshes {@code table} and pins the version read. */
    static ValidatedBase read(Table table) {
        if (!(table instanceof HasTableOperations hasOps)) {
            throw new IllegalStateException(
                    "table " + table.name() + " (" + table.getClass().getName()
                            + ") exposes no TableOperations; exactly-once commits need a catalog whose tables do");
        }
        TableOperations real = hasOps.operations();
        PinnedOperations pinned = new PinnedOperations(real, real.refresh());
        return new ValidatedBase(new BaseTable(pinned, table.name()));
    }

    /** The pinned version, for the check. */
    Table table() {
        return table;
    }

    /** An append whose snapshot has the pinned version as its parent. */
    AppendFiles newAppend() {
        return table.newAppend();
    }

    private static final class PinnedOperations extends ForwardingTableOperations {
        private volatile TableMetadata base;

        PinnedOperations(TableOperations real, TableMetadata base) {
            super(real);
            this.base = base;
        }

        @Override
        public TableMetadata current() {
            TableMetadata b = base;
            return b != null ? b : real.current();
        }

        @Override
        public TableMetadata refresh() {
            TableMetadata b = base;
            return b != null ? b : real.refresh();
        }

        @Override
        public void commit(TableMetadata from, TableMetadata metadata) {
            real.commit(from, metadata);
            base = null; // committed: from now on this follows the table again
        }
    }
}
