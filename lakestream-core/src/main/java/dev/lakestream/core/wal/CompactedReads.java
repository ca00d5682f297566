package dev.lakestream.core.wal;

import dev.lakestream.core.index.IndexRecord;
import dev.lakestream.core.log.EntryUnreadableException;
import dev.lakestream.core.log.LogEntry;
import dev.lakestream.core.objectstore.ObjectStore;
import dev.lakestream.core.segment.SegmentFormat;
import dev.lakestream.core.segment.SegmentFormats;
import dev.lakestream.core.segment.SegmentReader;
import io.netty.buffer.ByteBufAllocator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The reads of compacted index records: each through the segment reader of its file type, opened on first use. A
 * record no installed format reads fails the read with an error naming it; it is never skipped.
 */
final class CompactedReads implements AutoCloseable {

    /** Replaced, never changed, by {@link #add}: readers take the current set. */
    private volatile SegmentFormats formats;

    private final ObjectStore objects;
    private final ByteBufAllocator allocator;
    private final Map<Integer, SegmentReader> readers = new ConcurrentHashMap<>();

    CompactedReads(SegmentFormats formats, ObjectStore objects, ByteBufAllocator allocator) {
        this.formats = formats;
        this.objects = objects;
        this.allocator = allocator;
    }

    /** Adds formats a plugin brings (its class loader's), to read from now on. */
    synchronized void add(SegmentFormats more) {
        formats = formats.plus(more);
    }

    /** A read through a compacted record; {@code readsOn}: it continues the reader's last read of the stream. */
    CompletableFuture<List<LogEntry>> read(
            IndexRecord record, long fromOffset, int maxEntries, long maxBytes, boolean readsOn) {
        int type = record.value().fileType();
        SegmentFormats formats = this.formats;
        Optional<SegmentFormat> format = formats.forFileType(type);
        if (format.isEmpty()) {
            return CompletableFuture.failedFuture(new EntryUnreadableException(
                    record.streamId(),
                    Math.max(fromOffset, record.startOffset()),
                    record.value().location(),
                    "is a compacted segment of file type " + type + " (index record "
                            + record.key().format()
                            + ", offsets [" + record.startOffset() + ", " + record.endOffset() + ")), and no segment"
                            + " format installed here reads that type (installed: " + formats.describe() + ")",
                    null));
        }
        SegmentReader reader = readers.computeIfAbsent(type, t -> format.get().openReader(objects, allocator));
        return readsOn
                ? reader.readOn(record, fromOffset, maxEntries, maxBytes)
                : reader.read(record, fromOffset, maxEntries, maxBytes);
    }

    /** Passes the hint on to the reader of the record's file type ({@link SegmentReader#readAhead}), if any. */
    void readAhead(IndexRecord next) {
        SegmentReader reader = readers.get(next.value().fileType());
        if (reader != null) {
            reader.readAhead(next);
        }
    }

    @Override
    public void close() {
        readers.values().forEach(SegmentReader::close);
        readers.clear();
    }
}
