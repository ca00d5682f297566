package dev.lakestream.iceberg.schema;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericFixed;
import org.apache.avro.generic.IndexedRecord;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.types.Types.NestedField;

/**
 * Converts an Avro generic datum (as Avro's {@code GenericDatumReader} returns it, logical types in their raw
 * encodings) into Iceberg's generic representation of a target type, matching record fields by name. Handles
 * Avro's millisecond logical types (time-millis, timestamp-millis), which Iceberg's own Avro reader does not, and
 * the widenings schema evolution allows (int to long, float to double, decimal precision).
 */
final class AvroToIceberg {

    private AvroToIceberg() {}

    static Object convert(Object datum, Schema schema, Type target, String path) throws BadMessageException {
        if (datum == null) {
            return null;
        }
        if (schema.getType() == Schema.Type.UNION) {
            int branch = GenericData.get().resolveUnion(schema, datum);
            return convert(datum, schema.getTypes().get(branch), target, path);
        }
        LogicalType logical = schema.getLogicalType();
        switch (target.typeId()) {
            case STRUCT:
                return record(datum, schema, target.asStructType(), path);
            case LIST: {
                Type element = target.asListType().elementType();
                List<Object> out = new ArrayList<>();
                for (Object e : (Collection<?>) datum) {
                    out.add(convert(e, schema.getElementType(), element, path + "[]"));
                }
                return out;
            }
            case MAP: {
                Type value = target.asMapType().valueType();
                Map<String, Object> out = new LinkedHashMap<>();
                for (Map.Entry<?, ?> e : ((Map<?, ?>) datum).entrySet()) {
                    out.put(
                            e.getKey().toString(),
                            convert(e.getValue(), schema.getValueType(), value, path + "." + e.getKey()));
                }
                return out;
            }
            case STRING:
                return datum.toString();
            case UUID:
                return datum instanceof GenericFixed f ? uuid(f.bytes()) : UUID.fromString(datum.toString());
            case BOOLEAN:
                return datum;
            case INTEGER:
                return ((Number) datum).intValue();
            case LONG:
                return ((Number) datum).longValue();
            case FLOAT:
                return ((Number) datum).floatValue();
            case DOUBLE:
                return ((Number) datum).doubleValue();
            case DATE:
                return LocalDate.ofEpochDay(((Number) datum).longValue());
            case TIME: {
                long v = ((Number) datum).longValue();
                return LocalTime.ofNanoOfDay(logical instanceof LogicalTypes.TimeMillis ? v * 1_000_000L : v * 1000L);
            }
            case TIMESTAMP: {
                long v = ((Number) datum).longValue();
                boolean millis = logical instanceof LogicalTypes.TimestampMillis
                        || logical instanceof LogicalTypes.LocalTimestampMillis;
                Instant instant = millis
                        ? Instant.ofEpochMilli(v)
                        : Instant.ofEpochSecond(Math.floorDiv(v, 1_000_000L), Math.floorMod(v, 1_000_000L) * 1000L);
                return ((Types.TimestampType) target).shouldAdjustToUTC()
                        ? OffsetDateTime.ofInstant(instant, ZoneOffset.UTC)
                        : LocalDateTime.ofInstant(instant, ZoneOffset.UTC);
            }
            case DECIMAL: {
                int scale = ((LogicalTypes.Decimal) logical).getScale();
                byte[] unscaled = datum instanceof GenericFixed f ? f.bytes() : bytes((ByteBuffer) datum);
                return new BigDecimal(new BigInteger(unscaled), scale);
            }
            case BINARY:
                return ByteBuffer.wrap(datum instanceof GenericFixed f ? f.bytes() : bytes((ByteBuffer) datum));
            case FIXED:
                return ((GenericFixed) datum).bytes();
            default:
                throw new BadMessageException("field " + path + ": Iceberg type " + target + " is not supported");
        }
    }

    private static Record record(Object datum, Schema schema, Types.StructType target, String path)
            throws BadMessageException {
        if (!(datum instanceof IndexedRecord r)) {
            throw new BadMessageException("field " + path + " is a " + schema.getType() + ", not a record");
        }
        Record out = GenericRecord.create(target);
        for (NestedField f : target.fields()) {
            Schema.Field af = schema.getField(f.name());
            if (af != null) {
                out.setField(f.name(), convert(r.get(af.pos()), af.schema(), f.type(), path + "." + f.name()));
            }
        }
        return out;
    }

    private static byte[] bytes(ByteBuffer b) {
        ByteBuffer d = b.duplicate();
        byte[] out = new byte[d.remaining()];
        d.get(out);
        return out;
    }

    private static UUID uuid(byte[] b) {
        ByteBuffer buf = ByteBuffer.wrap(b);
        return new UUID(buf.getLong(), buf.getLong());
    }
}
