package dev.lakestream.core.objectstore;

/** A conditional create found an object already at the key (S3 answers 412). */
public class ObjectAlreadyExistsException extends ObjectStoreException {

    public ObjectAlreadyExistsException(String message) {
        super(message);
    }

    public ObjectAlreadyExistsException(String message, Throwable cause) {
        super(message, cause);
    }
}
