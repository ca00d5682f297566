package dev.lakestream.iceberg.schema;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.pulsar.common.schema.SchemaType;

/**
 * A value of one of Pulsar's primitive schemas, decoded as Pulsar's schema classes encode it (big-endian numbers,
 * UTF-8 strings, millisecond and nanosecond time encodings); {@code BYTES} and no schema keep the bytes.
 */
final class PrimitivePart implements Part {

    private final SchemaType schemaType;
    private final Type type;

    PrimitivePart(SchemaType schemaType) throws IncompatibleSchemaException {
        this.schemaType = schemaType;
        this.type = switch (schemaType) {
            case NONE, BYTES -> Types.BinaryType.get();
            case STRING -> Types.StringType.get();
            case BOOLEAN -> Types.BooleanType.get();
            case INT8, INT16, INT32 -> Types.IntegerType.get();
            case INT64 -> Types.LongType.get();
            case FLOAT -> Types.FloatType.get();
            case DOUBLE -> Types.DoubleType.get();
            case DATE, TIMESTAMP, INSTANT -> Types.TimestampType.withZone();
            case TIME, LOCAL_TIME -> Types.TimeType.get();
            case LOCAL_DATE -> Types.DateType.get();
            case LOCAL_DATE_TIME -> Types.TimestampType.withoutZone();
            default -> throw new IncompatibleSchemaException("schema type " + schemaType + " is not a primitive");
        };
    }

    static boolean isPrimitive(SchemaType t) {
        return t.isPrimitive() || t == SchemaType.NONE || t == SchemaType.BYTES;
    }

    @Override
    public Type type() {
        return type;
    }

    @Override
    public Decoder bind(Type target) throws IncompatibleSchemaException {
        boolean widenToLong = target.typeId() == Type.TypeID.LONG && type.typeId() == Type.TypeID.INTEGER;
        boolean widenToDouble = target.typeId() == Type.TypeID.DOUBLE && type.typeId() == Type.TypeID.FLOAT;
        if (!target.equals(type) && !widenToLong && !widenToDouble) {
            throw new IncompatibleSchemaException(
                    schemaType + " values cannot be written into a column of type " + target);
        }
        return bytes -> {
            Object v;
            try {
                v = decode(bytes);
            } catch (java.time.DateTimeException e) {
                throw new BadMessageException("a " + schemaType + " value is out of range (" + e.getMessage() + ")", e);
            }
            if (widenToLong) {
                return ((Integer) v).longValue();
            }
            if (widenToDouble) {
                return ((Float) v).doubleValue();
            }
            return v;
        };
    }

    private Object decode(byte[] b) throws BadMessageException {
        ByteBuffer buf = ByteBuffer.wrap(b);
        return switch (schemaType) {
            case NONE, BYTES -> ByteBuffer.wrap(b);
            case STRING -> new String(b, StandardCharsets.UTF_8);
            case BOOLEAN -> size(b, 1) && b[0] != 0;
            case INT8 -> size(b, 1) ? (int) b[0] : null;
            case INT16 -> size(b, 2) ? (int) buf.getShort() : null;
            case INT32 -> size(b, 4) ? buf.getInt() : null;
            case INT64 -> size(b, 8) ? buf.getLong() : null;
            case FLOAT -> size(b, 4) ? buf.getFloat() : null;
            case DOUBLE -> size(b, 8) ? buf.getDouble() : null;
            // java.util.Date and java.sql.Timestamp: epoch milliseconds.
            case DATE, TIMESTAMP ->
                size(b, 8) ? OffsetDateTime.ofInstant(Instant.ofEpochMilli(buf.getLong()), ZoneOffset.UTC) : null;
            // Epoch seconds and nanoseconds; Iceberg keeps microseconds.
            case INSTANT ->
                size(b, 12)
                        ? OffsetDateTime.ofInstant(Instant.ofEpochSecond(buf.getLong(), buf.getInt()), ZoneOffset.UTC)
                        : null;
            // java.sql.Time: milliseconds of the day.
            case TIME ->
                size(b, 8) ? LocalTime.ofNanoOfDay(Math.floorMod(buf.getLong(), 86_400_000L) * 1_000_000L) : null;
            case LOCAL_TIME -> size(b, 8) ? LocalTime.ofNanoOfDay(buf.getLong()) : null;
            case LOCAL_DATE -> size(b, 8) ? LocalDate.ofEpochDay(buf.getLong()) : null;
            case LOCAL_DATE_TIME ->
                size(b, 16)
                        ? LocalDateTime.of(LocalDate.ofEpochDay(buf.getLong()), LocalTime.ofNanoOfDay(buf.getLong()))
                        : null;
            default -> throw new IllegalStateException("not a primitive: " + schemaType);
        };
    }

    private boolean size(byte[] b, int expected) throws BadMessageException {
        if (b.length != expected) {
            throw new BadMessageException(
                    "a " + schemaType + " value has " + expected + " bytes, this one " + b.length);
        }
        return true;
    }
}
