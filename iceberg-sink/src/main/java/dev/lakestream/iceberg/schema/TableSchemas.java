package dev.lakestream.iceberg.schema;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.UpdateSchema;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.types.Types.NestedField;

/**
 * A table's schema from a topic's schema versions: the metadata columns, then the value columns; and its
 * evolution by name, keeping field ids, never rewriting data.
 *
 * <p>What a new version may do (Iceberg's {@code unionByNameWith}): add fields (always optional here), drop fields
 * (the column stays; new rows hold null), widen a type (int to long, float to double, a decimal's precision).
 * Anything else (a type changed otherwise, a field named with the reserved prefix) is an
 * {@link IncompatibleSchemaException}.
 */
public final class TableSchemas {

    private static final int MAX_ATTEMPTS = 10;

    private TableSchemas() {}

    /** The full schema a version asks for (fresh ids); what a new table is created with. */
    public static Schema schemaFor(ValueMapping mapping, String what) throws IncompatibleSchemaException {
        List<NestedField> fields = new ArrayList<>(MetadataColumns.columns());
        for (NestedField f : mapping.columns()) {
            if (f.name().startsWith(MetadataColumns.PREFIX)) {
                throw new IncompatibleSchemaException(what + ": field '" + f.name() + "' uses the prefix '"
                        + MetadataColumns.PREFIX + "' reserved for the table's metadata columns");
            }
            fields.add(f);
        }
        AtomicInteger ids = new AtomicInteger();
        // Fresh ids on the struct first: the value columns' placeholder ids overlap the metadata columns'.
        return new Schema(TypeUtil.assignFreshIds(Types.StructType.of(fields), ids::incrementAndGet)
                .asStructType()
                .fields());
    }

    /**
     * Makes {@code table}'s schema hold every column of {@code mapping}, committing a schema update when needed
     * (retried on a concurrent commit). Returns the table's schema afterwards.
     */
    public static Schema evolve(Table table, ValueMapping mapping, String what) throws IncompatibleSchemaException {
        Schema wanted = schemaFor(mapping, what);
        for (int attempt = 1; ; attempt++) {
            Schema current = table.schema();
            UpdateSchema update;
            Schema next;
            try {
                update = table.updateSchema().unionByNameWith(wanted);
                next = update.apply();
            } catch (IllegalArgumentException | IllegalStateException | ValidationException e) {
                throw new IncompatibleSchemaException(
                        what + " cannot be merged into table " + table.name() + " without rewriting it: "
                                + e.getMessage(),
                        e);
            }
            if (next.sameSchema(current)) {
                return current;
            }
            try {
                update.commit();
                table.refresh();
                return table.schema();
            } catch (CommitFailedException e) {
                if (attempt >= MAX_ATTEMPTS) {
                    throw e;
                }
                table.refresh();
            }
        }
    }
}
