package dev.lakestream.core.metadata;

/** A put that expected the key to be absent found it present. */
public class KeyAlreadyExistsException extends MetadataStoreException {

    public KeyAlreadyExistsException(String message) {
        super(message);
    }

    public KeyAlreadyExistsException(String message, Throwable cause) {
        super(message, cause);
    }
}
