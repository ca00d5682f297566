package dev.lakestream.core.log;

/** Base of the log's own failures (storage failures surface as object-store or metadata-store exceptions). */
public class LogException extends RuntimeException {

    public LogException(String message) {
        super(message);
    }

    public LogException(String message, Throwable cause) {
        super(message, cause);
    }
}
