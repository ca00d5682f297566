package dev.lakestream.core.log;

/** The writer's memory bound is reached and it is configured to reject rather than wait; nothing was written. */
public class AppendRejectedException extends LogException {

    public AppendRejectedException(String message) {
        super(message);
    }
}
