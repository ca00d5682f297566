package dev.lakestream.iceberg.schema;

import org.apache.iceberg.types.Type;

/** One encoded part of a message (its value, or the key or value of a KeyValue) and its Iceberg type. */
interface Part {

    /** The Iceberg type of the part (placeholder ids). */
    Type type();

    /** A decoder producing Iceberg generic values of {@code target}, the table's type for this part. */
    Decoder bind(Type target) throws IncompatibleSchemaException;

    @FunctionalInterface
    interface Decoder {
        Object decode(byte[] bytes) throws BadMessageException;
    }
}
