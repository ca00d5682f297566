package dev.lakestream.core.log;

/** The stream was fenced (a newer owner took it over); this writer's appends to it are refused. */
public class StreamFencedException extends LogException {

    public StreamFencedException(String message) {
        super(message);
    }
}
