package dev.lakestream.core.objectstore;

/** Base of every object-store failure. The message names the store and, where there is one, the key. */
public class ObjectStoreException extends RuntimeException {

    public ObjectStoreException(String message) {
        super(message);
    }

    public ObjectStoreException(String message, Throwable cause) {
        super(message, cause);
    }

    /** Whether retrying the same request may succeed (throttling, server errors, timeouts, lost connections). */
    public boolean isRetryable() {
        return false;
    }
}
