package dev.lakestream.iceberg.schema;

/** A message whose value does not decode against its schema version; it goes to the dead letters. */
public final class BadMessageException extends Exception {
    public BadMessageException(String message, Throwable cause) {
        super(message, cause);
    }

    public BadMessageException(String message) {
        super(message);
    }
}
