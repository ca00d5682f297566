package dev.lakestream.iceberg.schema;

import dev.lakestream.iceberg.pulsar.PulsarMessage;
import java.util.List;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types.NestedField;

/** How the values of one schema version become columns. Built by {@link ValueMappings#of}. */
public interface ValueMapping {

    /** The value columns this version asks for (top level; ids are placeholders, the table keeps its own). */
    List<NestedField> columns();

    /** A converter writing this version's values into rows of {@code tableSchema} (which holds the columns). */
    Converter bind(Schema tableSchema) throws IncompatibleSchemaException;

    /** Sets a row's value columns from a message. Not thread-safe: one per writing thread. */
    @FunctionalInterface
    interface Converter {
        void fill(PulsarMessage message, Record row) throws BadMessageException;
    }
}
