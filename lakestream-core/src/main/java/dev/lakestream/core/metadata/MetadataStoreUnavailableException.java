package dev.lakestream.core.metadata;

/** The store could not be reached, timed out, or is closed. */
public class MetadataStoreUnavailableException extends MetadataStoreException {

    public MetadataStoreUnavailableException(String message) {
        super(message);
    }

    public MetadataStoreUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
