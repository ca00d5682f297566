package dev.lakestream.segments;

/**
 * A segment that cannot be read as it should: the reader turns it into an
 * {@link dev.lakestream.core.log.EntryUnreadableException} naming the object and the offset; the message is the
 * problem (e.g. "is corrupt: ...", "disagrees with ...").
 */
final class BadSegmentException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    BadSegmentException(String problem, Throwable cause) {
        super(problem, cause);
    }
}
