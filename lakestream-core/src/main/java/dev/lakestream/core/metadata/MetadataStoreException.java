package dev.lakestream.core.metadata;

/** Base of every metadata-store failure. The message names the store's address and, where there is one, the key. */
public class MetadataStoreException extends RuntimeException {

    public MetadataStoreException(String message) {
        super(message);
    }

    public MetadataStoreException(String message, Throwable cause) {
        super(message, cause);
    }
}
