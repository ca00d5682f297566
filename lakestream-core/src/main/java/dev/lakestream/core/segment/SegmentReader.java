package dev.lakestream.core.segment;

import dev.lakestream.core.index.IndexRecord;
import dev.lakestream.core.log.LogEntry;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Reads entries out of the segments of one format. Thread-safe; holds at most caches of its own, released on
 * {@link #close()}.
 */
public interface SegmentReader extends AutoCloseable {

    /**
     * Entries of the segment that the compacted {@code record} points at: from the first entry whose end is past
     * {@code fromOffset} on, in order, at most {@code maxEntries} and no more bytes than {@code maxBytes} except that the
     * first is always returned whole, and none past the record's end. Each entry's timestamp is the record's
     * ({@link IndexRecord#timestamp()}). The caller owns one reference to each payload.
     *
     * <p>Fails with {@link dev.lakestream.core.log.EntryUnreadableException} naming the object and the offset when the
     * segment is missing, corrupt, truncated, or disagrees with the record (its range, entry or record counts): it
     * never returns other entries instead.
     */
    CompletableFuture<List<LogEntry>> read(IndexRecord record, long fromOffset, int maxEntries, long maxBytes);

    /**
     * As {@link #read}, for a reader reading on: the read starts where its last read of the stream ended (the caller
     * tells those apart), so what follows may be fetched ahead. By default a plain read.
     */
    default CompletableFuture<List<LogEntry>> readOn(
            IndexRecord record, long fromOffset, int maxEntries, long maxBytes) {
        return read(record, fromOffset, maxEntries, maxBytes);
    }

    /**
     * A hint: a reader reading on is near the end of one compacted record and will read {@code next}, the stream's
     * next compacted record, soon; the reader may fetch its first bytes ahead. Never fails; does nothing by default.
     */
    default void readAhead(IndexRecord next) {}

    @Override
    void close();
}
