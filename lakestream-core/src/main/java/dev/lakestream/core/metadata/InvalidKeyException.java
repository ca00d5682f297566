package dev.lakestream.core.metadata;

/** The key (or partition key, or sequence-key option) cannot be stored: empty, or not valid for the operation. */
public class InvalidKeyException extends MetadataStoreException {

    public InvalidKeyException(String message) {
        super(message);
    }

    public InvalidKeyException(String message, Throwable cause) {
        super(message, cause);
    }
}
