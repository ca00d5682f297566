package dev.lakestream.segments;

import dev.lakestream.core.log.LogEntry;
import java.util.List;
import org.apache.parquet.io.api.RecordConsumer;
import org.apache.parquet.schema.Type;

/**
 * The hook for columns beyond the core ones (the Pulsar {@code _pulsar_*} and value columns of a materialized topic,
 * later): its fields follow the core columns in the schema, and it writes each row's values. {@link #NONE}, the only
 * one so far, adds nothing.
 */
public interface ValueColumns {

    ValueColumns NONE = new ValueColumns() {
        @Override
        public List<Type> fields() {
            return List.of();
        }

        @Override
        public void writeRow(LogEntry entry, int messageIndex, RecordConsumer row, int firstFieldIndex) {}
    };

    /** The fields, in order, appended after the core columns; with field ids outside the reserved block. */
    List<Type> fields();

    /**
     * Writes message {@code messageIndex}'s values of {@code entry} into the open row: for each field that has a value,
     * {@code startField(name, firstFieldIndex + i)}, the value, {@code endField(...)}.
     */
    void writeRow(LogEntry entry, int messageIndex, RecordConsumer row, int firstFieldIndex);
}
