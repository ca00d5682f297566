package dev.lakestream.core.objectstore;

/** The bytes read do not match the checksum the store holds for them. */
public class ObjectCorruptedException extends ObjectStoreException {

    public ObjectCorruptedException(String message) {
        super(message);
    }

    public ObjectCorruptedException(String message, Throwable cause) {
        super(message, cause);
    }
}
