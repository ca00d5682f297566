package dev.lakestream.iceberg.schema;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.types.Types.NestedField;
import org.apache.pulsar.common.schema.SchemaType;

/**
 * The column mapping of each Pulsar schema type (docs/iceberg.md, "Column mapping"):
 * <ul>
 *   <li>AVRO and JSON (record): one top-level column per field;</li>
 *   <li>primitives: a {@code value} column of the matching type; BYTES and no schema: a binary {@code value};</li>
 *   <li>KEY_VALUE: a {@code key} and a {@code value} column, each a struct (record schemas) or a primitive.</li>
 * </ul>
 * PROTOBUF, PROTOBUF_NATIVE and EXTERNAL schemas are refused with {@link IncompatibleSchemaException}.
 */
public final class ValueMappings {

    public static final String VALUE = "value";
    public static final String KEY = "key";

    private ValueMappings() {}

    /** The mapping of one schema version; {@code what} names it in errors (schema id and version). */
    public static ValueMapping of(TopicSchema schema, String what) throws IncompatibleSchemaException {
        SchemaType t = schema.type();
        if (t == SchemaType.AVRO || t == SchemaType.JSON) {
            return new Flattened(new AvroPart(schema.data(), t == SchemaType.JSON, what), what);
        }
        if (t == SchemaType.KEY_VALUE) {
            return keyValue(schema, what);
        }
        if (PrimitivePart.isPrimitive(t)) {
            return new Single(new PrimitivePart(t));
        }
        throw new IncompatibleSchemaException(what + ": schema type " + t + " is not materialized (AVRO, JSON,"
                + " KEY_VALUE, primitives, BYTES and none are)");
    }

    private static Part part(SchemaType t, byte[] data, String what) throws IncompatibleSchemaException {
        if (t == SchemaType.AVRO || t == SchemaType.JSON) {
            return new AvroPart(data, t == SchemaType.JSON, what);
        }
        if (PrimitivePart.isPrimitive(t)) {
            return new PrimitivePart(t);
        }
        throw new IncompatibleSchemaException(what + ": a KeyValue part of type " + t + " is not materialized");
    }

    /** Pulsar's KeyValue schema: data is {@code int32 len | key schema | int32 len | value schema}. */
    private static ValueMapping keyValue(TopicSchema schema, String what) throws IncompatibleSchemaException {
        Map<String, String> p = schema.properties();
        ByteBuffer b = ByteBuffer.wrap(schema.data());
        byte[] keyDef;
        byte[] valueDef;
        try {
            keyDef = lengthPrefixed(b);
            valueDef = lengthPrefixed(b);
        } catch (RuntimeException e) {
            throw new IncompatibleSchemaException(what + ": the KeyValue schema definition is malformed", e);
        }
        SchemaType keyType = SchemaType.valueOf(p.getOrDefault("key.schema.type", "BYTES"));
        SchemaType valueType = SchemaType.valueOf(p.getOrDefault("value.schema.type", "BYTES"));
        boolean separated = "SEPARATED".equals(p.get("kv.encoding.type"));
        return new KeyValueMapping(
                part(keyType, keyDef, what + " key"), part(valueType, valueDef, what + " value"), separated);
    }

    /** A length-prefixed part; a negative length is an absent (null) part. */
    private static byte[] lengthPrefixed(ByteBuffer b) {
        int len = b.getInt();
        if (len < 0) {
            return null;
        }
        byte[] out = new byte[len];
        b.get(out);
        return out;
    }

    /** A record value whose fields are the table's top-level columns. */
    private record Flattened(AvroPart part, String what) implements ValueMapping {

        @Override
        public List<NestedField> columns() {
            return part.type().fields();
        }

        @Override
        public Converter bind(Schema tableSchema) throws IncompatibleSchemaException {
            List<NestedField> target = new ArrayList<>();
            for (NestedField f : part.type().fields()) {
                NestedField t = tableSchema.findField(f.name());
                if (t == null) {
                    throw new IncompatibleSchemaException(what + ": the table has no column " + f.name());
                }
                target.add(t);
            }
            Part.Decoder decoder = part.bind(Types.StructType.of(target));
            String[] names = target.stream().map(NestedField::name).toArray(String[]::new);
            return (m, row) -> {
                if (m.nullValue()) {
                    return;
                }
                Record value = (Record) decoder.decode(m.payload());
                for (String n : names) {
                    row.setField(n, value.getField(n));
                }
            };
        }
    }

    /** A value in one column named {@value #VALUE}. */
    private record Single(Part part) implements ValueMapping {

        @Override
        public List<NestedField> columns() {
            return List.of(NestedField.optional(1, VALUE, part.type()));
        }

        @Override
        public Converter bind(Schema tableSchema) throws IncompatibleSchemaException {
            Part.Decoder decoder = part.bind(column(tableSchema, VALUE));
            return (m, row) -> row.setField(VALUE, m.nullValue() ? null : decoder.decode(m.payload()));
        }
    }

    private record KeyValueMapping(Part key, Part value, boolean separated) implements ValueMapping {

        @Override
        public List<NestedField> columns() {
            return List.of(NestedField.optional(1, KEY, key.type()), NestedField.optional(2, VALUE, value.type()));
        }

        @Override
        public Converter bind(Schema tableSchema) throws IncompatibleSchemaException {
            Part.Decoder keys = key.bind(column(tableSchema, KEY));
            Part.Decoder values = value.bind(column(tableSchema, VALUE));
            return (m, row) -> {
                byte[] k;
                byte[] v;
                if (separated) {
                    // The key travels as the message key (base64 of its bytes), the value as the payload.
                    k = m.key() == null
                            ? null
                            : m.keyBase64()
                                    ? Base64.getDecoder().decode(m.key())
                                    : m.key().getBytes(StandardCharsets.UTF_8);
                    v = m.nullValue() ? null : m.payload();
                } else {
                    ByteBuffer b = ByteBuffer.wrap(m.payload());
                    try {
                        k = lengthPrefixed(b);
                        v = lengthPrefixed(b);
                    } catch (RuntimeException e) {
                        throw new BadMessageException("the KeyValue payload is malformed (" + e + ")", e);
                    }
                }
                row.setField(KEY, k == null ? null : keys.decode(k));
                row.setField(VALUE, v == null ? null : values.decode(v));
            };
        }
    }

    private static Type column(Schema tableSchema, String name) throws IncompatibleSchemaException {
        NestedField f = tableSchema.findField(name);
        if (f == null) {
            throw new IncompatibleSchemaException("the table has no column " + name);
        }
        return f.type();
    }
}
