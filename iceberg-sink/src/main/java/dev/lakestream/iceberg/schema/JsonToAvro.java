package dev.lakestream.iceberg.schema;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.Conversions;
import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;

/**
 * Turns a JSON payload of a Pulsar JSON schema (plain JSON, as Jackson writes a POJO; not Avro's JSON encoding,
 * which wraps union values) into an Avro generic datum of the schema's Avro definition, so JSON and Avro topics
 * share one conversion. A missing field takes its default, else null.
 */
final class JsonToAvro {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Conversions.DecimalConversion DECIMALS = new Conversions.DecimalConversion();

    private JsonToAvro() {}

    /** The Avro generic datum of a JSON payload. */
    static Object toDatum(byte[] json, Schema schema) throws BadMessageException {
        JsonNode node;
        try {
            node = JSON.readTree(json);
        } catch (IOException e) {
            throw new BadMessageException("the value is not JSON (" + e.getMessage() + ")", e);
        }
        try {
            return convert(node, schema, schema.getName());
        } catch (ArithmeticException | IllegalArgumentException e) {
            throw new BadMessageException(
                    "the JSON value does not fit schema " + schema.getFullName() + " (" + e + ")", e);
        }
    }

    private static Object convert(JsonNode n, Schema s, String path) throws BadMessageException {
        if (n == null || n.isNull()) {
            if (s.getType() == Schema.Type.NULL || s.isNullable()) {
                return null;
            }
            throw new BadMessageException("field " + path + " is null but its type " + s + " is not nullable");
        }
        LogicalType logical = s.getLogicalType();
        switch (s.getType()) {
            case UNION:
                for (Schema branch : s.getTypes()) {
                    if (branch.getType() != Schema.Type.NULL && fits(n, branch)) {
                        return convert(n, branch, path);
                    }
                }
                throw new BadMessageException("field " + path + ": " + n.getNodeType() + " fits no branch of " + s);
            case RECORD:
                if (!n.isObject()) {
                    throw new BadMessageException("field " + path + " must be an object, not " + n.getNodeType());
                }
                GenericData.Record r = new GenericData.Record(s);
                for (Schema.Field f : s.getFields()) {
                    JsonNode v = n.get(f.name());
                    if (v == null && f.hasDefaultValue()) {
                        r.put(f.pos(), GenericData.get().getDefaultValue(f));
                    } else {
                        r.put(f.pos(), convert(v, f.schema(), path + "." + f.name()));
                    }
                }
                return r;
            case ARRAY: {
                need(n.isArray(), path, "an array", n);
                List<Object> l = new ArrayList<>(n.size());
                for (JsonNode e : n) {
                    l.add(convert(e, s.getElementType(), path + "[]"));
                }
                return l;
            }
            case MAP: {
                need(n.isObject(), path, "an object", n);
                Map<String, Object> m = new HashMap<>();
                for (Map.Entry<String, JsonNode> e : n.properties()) {
                    m.put(e.getKey(), convert(e.getValue(), s.getValueType(), path + "." + e.getKey()));
                }
                return m;
            }
            case STRING:
                return n.isTextual() ? n.asText() : n.toString();
            case ENUM:
                need(n.isTextual() && s.hasEnumSymbol(n.asText()), path, "one of " + s.getEnumSymbols(), n);
                return new GenericData.EnumSymbol(s, n.asText());
            case BOOLEAN:
                need(n.isBoolean(), path, "a boolean", n);
                return n.asBoolean();
            case INT:
                need(n.isIntegralNumber() && n.canConvertToInt(), path, "an int", n);
                return n.asInt();
            case LONG:
                need(n.isIntegralNumber() && n.canConvertToLong(), path, "a long", n);
                return n.asLong();
            case FLOAT:
                need(n.isNumber(), path, "a number", n);
                return n.floatValue();
            case DOUBLE:
                need(n.isNumber(), path, "a number", n);
                return n.doubleValue();
            case BYTES:
            case FIXED:
                if (logical instanceof LogicalTypes.Decimal d) {
                    need(n.isNumber() || n.isTextual(), path, "a decimal number", n);
                    BigDecimal v = new BigDecimal(n.asText()).setScale(d.getScale(), RoundingMode.UNNECESSARY);
                    return s.getType() == Schema.Type.BYTES ? DECIMALS.toBytes(v, s, d) : DECIMALS.toFixed(v, s, d);
                }
                need(n.isTextual(), path, "base64 text", n);
                byte[] b = Base64.getDecoder().decode(n.asText());
                return s.getType() == Schema.Type.BYTES ? ByteBuffer.wrap(b) : new GenericData.Fixed(s, b);
            default:
                throw new BadMessageException("field " + path + " has unsupported Avro type " + s.getType());
        }
    }

    private static boolean fits(JsonNode n, Schema s) {
        return switch (s.getType()) {
            case RECORD, MAP -> n.isObject();
            case ARRAY -> n.isArray();
            case STRING, ENUM -> n.isTextual();
            case BOOLEAN -> n.isBoolean();
            case INT, LONG -> n.isIntegralNumber();
            case FLOAT, DOUBLE -> n.isNumber();
            case BYTES, FIXED -> n.isTextual() || n.isNumber();
            default -> false;
        };
    }

    private static void need(boolean ok, String path, String what, JsonNode n) throws BadMessageException {
        if (!ok) {
            throw new BadMessageException("field " + path + " must be " + what + ", not " + n);
        }
    }
}
