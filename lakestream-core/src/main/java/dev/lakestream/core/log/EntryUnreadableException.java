package dev.lakestream.core.log;

/**
 * Data the offset index points at cannot be read back intact: the object is missing, corrupt or
 * truncated. Names the stream, the offset and the object; the reader never returns wrong bytes instead.
 */
public class EntryUnreadableException extends LogException {

    private final long streamId;
    private final long offset;
    private final String objectKey;

    public EntryUnreadableException(long streamId, long offset, String objectKey, String problem, Throwable cause) {
        super("stream " + streamId + " offset " + offset + ": object '" + objectKey + "' " + problem, cause);
        this.streamId = streamId;
        this.offset = offset;
        this.objectKey = objectKey;
    }

    public long streamId() {
        return streamId;
    }

    public long offset() {
        return offset;
    }

    public String objectKey() {
        return objectKey;
    }
}
