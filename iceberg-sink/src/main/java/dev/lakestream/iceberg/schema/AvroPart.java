package dev.lakestream.iceberg.schema;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import org.apache.avro.AvroRuntimeException;
import org.apache.avro.Schema.Parser;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.io.DecoderFactory;
import org.apache.iceberg.avro.AvroSchemaUtil;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * A struct part described by an Avro record schema: Pulsar's AVRO (Avro binary payloads) and JSON (JSON payloads
 * of an Avro-described struct) schemas. The Avro schema becomes an Iceberg struct with Iceberg's own conversion
 * (logical types: decimal, date, time-millis/micros, timestamp-millis/micros as timestamptz, uuid), every field
 * optional so that later versions may drop fields and null values fit. Payloads are read with Avro's generic
 * reader and converted by name into the table's struct ({@link AvroToIceberg}), so the table's field ids are kept.
 */
final class AvroPart implements Part {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Set<String> INSTANT_TYPES = Set.of("timestamp-millis", "timestamp-micros");

    private final org.apache.avro.Schema avro;
    private final boolean jsonPayloads;
    private final Types.StructType type;

    AvroPart(byte[] definition, boolean jsonPayloads, String what) throws IncompatibleSchemaException {
        this.jsonPayloads = jsonPayloads;
        try {
            JsonNode tree = JSON.readTree(definition);
            markInstants(tree);
            this.avro = new Parser().setValidateDefaults(false).parse(JSON.writeValueAsString(tree));
        } catch (IOException | RuntimeException e) {
            throw new IncompatibleSchemaException(what + ": the Avro schema definition does not parse (" + e + ")", e);
        }
        if (avro.getType() != org.apache.avro.Schema.Type.RECORD) {
            throw new IncompatibleSchemaException(what + ": the Avro schema is a " + avro.getType()
                    + ", not a record; only record schemas are materialized");
        }
        try {
            this.type = (Types.StructType)
                    IcebergTypes.optional(AvroSchemaUtil.toIceberg(avro).asStruct());
        } catch (RuntimeException e) {
            throw new IncompatibleSchemaException(what + ": the Avro schema has no Iceberg equivalent (" + e + ")", e);
        }
    }

    /** Avro timestamp-millis/micros are instants: Iceberg reads them as timestamptz when marked adjust-to-utc. */
    private static void markInstants(JsonNode node) {
        if (node.isObject()) {
            JsonNode logical = node.get("logicalType");
            if (logical != null
                    && INSTANT_TYPES.contains(logical.asText())
                    && !node.has(AvroSchemaUtil.ADJUST_TO_UTC_PROP)) {
                ((ObjectNode) node).put(AvroSchemaUtil.ADJUST_TO_UTC_PROP, true);
            }
            node.forEach(AvroPart::markInstants);
        } else if (node.isArray()) {
            node.forEach(AvroPart::markInstants);
        }
    }

    @Override
    public Types.StructType type() {
        return type;
    }

    @Override
    public Decoder bind(Type target) throws IncompatibleSchemaException {
        if (!target.isStructType()) {
            throw new IncompatibleSchemaException("a record schema cannot be written into a column of type " + target);
        }
        GenericDatumReader<Object> reader = new GenericDatumReader<>(avro);
        String root = avro.getName();
        return bytes -> {
            Object datum;
            if (jsonPayloads) {
                datum = JsonToAvro.toDatum(bytes, avro);
            } else {
                try {
                    datum = reader.read(null, DecoderFactory.get().binaryDecoder(bytes, null));
                } catch (IOException | AvroRuntimeException | IndexOutOfBoundsException e) {
                    throw new BadMessageException(
                            "the value does not decode as Avro of schema " + avro.getFullName() + " (" + e + ")", e);
                }
            }
            try {
                return AvroToIceberg.convert(datum, avro, target, root);
            } catch (ClassCastException | ArithmeticException | java.time.DateTimeException e) {
                throw new BadMessageException("the value does not fit the table's columns (" + e + ")", e);
            }
        };
    }

    static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }
}
