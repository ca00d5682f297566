package dev.lakestream.tests.iceberg;

import dev.lakestream.iceberg.TableNames;
import dev.lakestream.iceberg.TopicRef;
import dev.lakestream.iceberg.schema.MetadataColumns;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.io.CloseableIterable;

/** Reads a topic's table with Iceberg's own generic reader, as any engine would see it now. */
public final class IcebergTables {

    private final Catalog catalog;

    public IcebergTables(Catalog catalog) {
        this.catalog = catalog;
    }

    /** Every row of the topic's table (empty if there is no table yet). */
    public List<Record> rows(String topic) {
        Table table;
        try {
            table = catalog.loadTable(TableNames.of(TopicRef.parse(topic)));
        } catch (NoSuchTableException e) {
            return List.of();
        }
        List<Record> out = new ArrayList<>();
        try (CloseableIterable<Record> rows = IcebergGenerics.read(table).build()) {
            rows.forEach(out::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    /** The id of the table's current snapshot; fails when there is no table or it has no snapshot. */
    long currentSnapshotId(String topic) {
        Table table = catalog.loadTable(TableNames.of(TopicRef.parse(topic)));
        if (table.currentSnapshot() == null) {
            throw new IllegalStateException("the table of " + topic + " has no snapshot");
        }
        return table.currentSnapshot().snapshotId();
    }

    boolean exists(String topic) {
        return catalog.tableExists(TableNames.of(TopicRef.parse(topic)));
    }

    /** The message's position (partition:ledger:entry:batch index), unique per message of a topic. */
    static String position(Record r) {
        return r.getField(MetadataColumns.PARTITION) + ":" + r.getField(MetadataColumns.LEDGER_ID) + ":"
                + r.getField(MetadataColumns.ENTRY_ID) + ":" + r.getField(MetadataColumns.BATCH_INDEX);
    }
}
