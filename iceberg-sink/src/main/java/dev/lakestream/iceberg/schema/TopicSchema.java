package dev.lakestream.iceberg.schema;

import java.util.Map;
import org.apache.pulsar.common.schema.SchemaType;

/**
 * One version of a topic's schema as Pulsar's registry keeps it.
 *
 * @param type the schema type ({@code NONE} when the topic has no schema)
 * @param data the schema definition (an Avro schema's JSON for AVRO and JSON; Pulsar's two-part encoding for
 *     KEY_VALUE; empty for primitives)
 * @param properties the schema's properties
 */
public record TopicSchema(
        SchemaType type,
        @SuppressWarnings("ArrayRecordComponent") // schema bytes as Pulsar keeps them; never compared or hashed
        byte[] data,
        Map<String, String> properties) {

    /** What a topic without a schema (or with BYTES) holds: raw bytes. */
    public static final TopicSchema BYTES = new TopicSchema(SchemaType.BYTES, new byte[0], Map.of());
}
