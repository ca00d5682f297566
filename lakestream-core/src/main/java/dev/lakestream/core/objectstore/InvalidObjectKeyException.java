package dev.lakestream.core.objectstore;

/** The key cannot be stored (empty, too long, or a character the store cannot hold). */
public class InvalidObjectKeyException extends ObjectStoreException {

    public InvalidObjectKeyException(String message) {
        super(message);
    }

    public InvalidObjectKeyException(String message, Throwable cause) {
        super(message, cause);
    }
}
