package dev.lakestream.core.objectstore;

/** The configured bucket (or root directory) does not exist. */
public class BucketNotFoundException extends ObjectStoreException {

    public BucketNotFoundException(String message) {
        super(message);
    }

    public BucketNotFoundException(String message, Throwable cause) {
        super(message, cause);
    }
}
