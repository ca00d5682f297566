package dev.lakestream.iceberg.schema;

/** A schema version that could not be read (store failure, or a version the registry does not have). */
public final class SchemaUnavailableException extends Exception {
    public SchemaUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
