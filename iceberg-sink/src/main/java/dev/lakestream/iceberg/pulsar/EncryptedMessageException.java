package dev.lakestream.iceberg.pulsar;

/**
 * An end-to-end encrypted message. The materializer never holds consumer keys, so it cannot decode the value;
 * rather than fill a table with opaque rows, the topic's materialization stops with this reason
 * (docs/iceberg.md, "Encrypted messages").
 */
public final class EncryptedMessageException extends Exception {
    public EncryptedMessageException(String message) {
        super(message);
    }
}
