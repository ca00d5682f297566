package dev.lakestream.core.objectstore;

/** The store refused the credentials or the request (wrong key, wrong secret, no permission). */
public class ObjectStoreAccessDeniedException extends ObjectStoreException {

    public ObjectStoreAccessDeniedException(String message) {
        super(message);
    }

    public ObjectStoreAccessDeniedException(String message, Throwable cause) {
        super(message, cause);
    }
}
