package dev.lakestream.core.objectstore;

/** A ranged read started at or past the end of the object. */
public class InvalidRangeException extends ObjectStoreException {

    public InvalidRangeException(String message) {
        super(message);
    }

    public InvalidRangeException(String message, Throwable cause) {
        super(message, cause);
    }
}
