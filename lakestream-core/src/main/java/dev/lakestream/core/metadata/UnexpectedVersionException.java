package dev.lakestream.core.metadata;

/** A conditional put or delete found the record at another version than the one expected (or absent). */
public class UnexpectedVersionException extends MetadataStoreException {

    private final String key;
    private final long expectedVersionId;

    public UnexpectedVersionException(String message, String key, long expectedVersionId) {
        super(message);
        this.key = key;
        this.expectedVersionId = expectedVersionId;
    }

    public String key() {
        return key;
    }

    public long expectedVersionId() {
        return expectedVersionId;
    }
}
