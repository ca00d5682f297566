package dev.lakestream.core.wal;

/** A WAL object's bytes do not parse: it is corrupt, truncated, or not a WAL object. Names the object. */
public class WalObjectFormatException extends IllegalArgumentException {

    private final String objectKey;

    public WalObjectFormatException(String objectKey, String problem) {
        super("WAL object '" + objectKey + "': " + problem);
        this.objectKey = objectKey;
    }

    public String objectKey() {
        return objectKey;
    }
}
