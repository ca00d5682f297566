package dev.lakestream.core.index;

/** An offset-index record does not decode. Names the record's key. */
public class IndexFormatException extends IllegalArgumentException {

    public IndexFormatException(String key, String problem) {
        super("offset-index record '" + key + "': " + problem);
    }
}
