package dev.lakestream.iceberg.pulsar;

/** An entry that is not a well-formed Pulsar message (or batch); the message says what was wrong. */
public final class EntryDecodeException extends Exception {
    public EntryDecodeException(String message, Throwable cause) {
        super(message, cause);
    }

    public EntryDecodeException(String message) {
        super(message);
    }
}
