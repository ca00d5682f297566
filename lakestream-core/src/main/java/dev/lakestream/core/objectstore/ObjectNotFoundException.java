package dev.lakestream.core.objectstore;

/** No object at the key (or it vanished between list and get). */
public class ObjectNotFoundException extends ObjectStoreException {

    public ObjectNotFoundException(String message) {
        super(message);
    }

    public ObjectNotFoundException(String message, Throwable cause) {
        super(message, cause);
    }
}
