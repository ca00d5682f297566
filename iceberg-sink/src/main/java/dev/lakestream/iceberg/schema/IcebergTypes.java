package dev.lakestream.iceberg.schema;

import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.types.Types.NestedField;

/** Small helpers on Iceberg types. */
final class IcebergTypes {

    private IcebergTypes() {}

    /** {@code t} with every struct field, list element and map value optional (map keys stay required). */
    static Type optional(Type t) {
        if (t.isStructType()) {
            List<NestedField> fields = new ArrayList<>();
            for (NestedField f : t.asStructType().fields()) {
                fields.add(NestedField.optional(f.fieldId(), f.name(), optional(f.type()), f.doc()));
            }
            return Types.StructType.of(fields);
        }
        if (t.isListType()) {
            Types.ListType l = t.asListType();
            return Types.ListType.ofOptional(l.elementId(), optional(l.elementType()));
        }
        if (t.isMapType()) {
            Types.MapType m = t.asMapType();
            return Types.MapType.ofOptional(m.keyId(), m.valueId(), optional(m.keyType()), optional(m.valueType()));
        }
        return t;
    }
}
