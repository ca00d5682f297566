package dev.lakestream.core.segment;

import dev.lakestream.core.objectstore.ObjectStore;
import dev.lakestream.core.objectstore.ObjectUpload;
import io.netty.buffer.ByteBufAllocator;

/**
 * One file format of compacted segments, registered under the offset index's {@code file_type} its records carry.
 * Implementations are found through {@link java.util.ServiceLoader} ({@link SegmentFormats#installed()}) and must have
 * a public no-argument constructor; they are stateless factories.
 */
public interface SegmentFormat {

    /** The {@code file_type} of the compacted index records this format writes and reads; never RAW (0). */
    int fileType();

    /** A short name for messages and keys, e.g. {@code parquet}; also the segment objects' file extension. */
    String name();

    /** A reader of this format's segments in {@code objects}, fetching into buffers of {@code allocator}. */
    SegmentReader openReader(ObjectStore objects, ByteBufAllocator allocator);

    /**
     * A writer of one segment of stream {@code streamId}, whose first entry starts at {@code firstOffset}, streaming
     * the object's bytes into {@code out} (whose key the finished segment names).
     */
    SegmentWriter newWriter(long streamId, long firstOffset, ObjectUpload out);
}
