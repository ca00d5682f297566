package dev.lakestream.iceberg.schema;

/**
 * A schema version the table cannot take without rewriting data (a type changed to one that is not a widening,
 * a reserved column name, an unsupported schema type). The caller pauses the topic with this reason; other topics
 * go on.
 */
public final class IncompatibleSchemaException extends Exception {
    public IncompatibleSchemaException(String message, Throwable cause) {
        super(message, cause);
    }

    public IncompatibleSchemaException(String message) {
        super(message);
    }
}
