package dev.lakestream.core.segment;

import dev.lakestream.core.log.LogEntry;
import java.util.concurrent.CompletableFuture;

/**
 * Writes one segment: a contiguous run of one stream's entries, appended in offset order, their object's bytes
 * streamed into the {@link dev.lakestream.core.objectstore.ObjectUpload} the writer was made with as they are
 * encoded (a row group at a time, say), so that a segment is never held whole. The caller owns the upload: it
 * completes it after {@link #finish()}, or aborts it. Owned by one thread (the compaction writing it); not
 * thread-safe.
 */
public interface SegmentWriter extends AutoCloseable {

    /**
     * Adds the next entry. Its offset must be the end of the one before (the first: the writer's first offset). The
     * writer copies what it needs; the caller keeps its reference to the payload.
     *
     * @throws IllegalArgumentException for an entry of another stream or one that does not follow the last
     */
    void append(LogEntry entry);

    /**
     * Completes when what the writer has handed to its upload is stored but for the upload's own buffer: a caller
     * that waits for it between batches of entries keeps the segment's memory bounded. Fails when the upload failed.
     */
    default CompletableFuture<Void> ready() {
        return CompletableFuture.completedFuture(null);
    }

    /** Payload bytes appended so far: what a compaction cuts segments by. */
    long payloadBytes();

    /**
     * Ends the segment: writes its last bytes into the upload (which the caller then completes); no entry may be
     * appended after. At least one entry must have been appended.
     */
    SegmentFile finish();

    /** Drops what the writer holds (not the upload, the caller's to complete or abort). */
    @Override
    void close();
}
