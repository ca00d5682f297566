package dev.lakestream.core.segment;

import dev.lakestream.core.log.LogEntry;

/**
 * Writes one segment: a contiguous run of one stream's entries, appended in offset order, turned into one object's
 * bytes by {@link #finish()}. Owned by one thread (the compaction writing it); not thread-safe.
 */
public interface SegmentWriter extends AutoCloseable {

    /**
     * Adds the next entry. Its offset must be the end of the one before (the first: the writer's first offset). The
     * writer copies what it needs; the caller keeps its reference to the payload.
     *
     * @throws IllegalArgumentException for an entry of another stream or one that does not follow the last
     */
    void append(LogEntry entry);

    /** Payload bytes appended so far: what a compaction cuts segments by. */
    long payloadBytes();

    /** Ends the segment; no entry may be appended after. At least one entry must have been appended. */
    SegmentFile finish();

    /** Drops what the writer holds; a finished segment's bytes are the caller's and stay. */
    @Override
    void close();
}
