package dev.lakestream.core.objectstore;

/**
 * The store could not be reached or kept failing: connection refused, timeouts, or server errors and
 * throttling (500, 503 SlowDown) that outlasted the retries.
 */
public class ObjectStoreUnavailableException extends ObjectStoreException {

    public ObjectStoreUnavailableException(String message) {
        super(message);
    }

    public ObjectStoreUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }

    @Override
    public boolean isRetryable() {
        return true;
    }
}
