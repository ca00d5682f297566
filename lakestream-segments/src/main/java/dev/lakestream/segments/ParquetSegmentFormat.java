package dev.lakestream.segments;

import dev.lakestream.core.index.IndexValue;
import dev.lakestream.core.objectstore.ObjectStore;
import dev.lakestream.core.objectstore.ObjectUpload;
import dev.lakestream.core.segment.SegmentFormat;
import dev.lakestream.core.segment.SegmentReader;
import dev.lakestream.core.segment.SegmentWriter;
import io.netty.buffer.ByteBufAllocator;
import org.apache.parquet.bytes.ByteBufferAllocator;
import org.apache.parquet.bytes.HeapByteBufferAllocator;

/**
 * Parquet segments ({@code file_type} PARQUET, 1): one row per message, the raw entry once per entry, row groups on
 * entry boundaries with offset statistics to seek by (docs/layout.md §2.5.1). Found by {@link java.util.ServiceLoader}
 * through this module's {@code META-INF/services/dev.lakestream.core.segment.SegmentFormat}.
 */
public final class ParquetSegmentFormat implements SegmentFormat {

    public static final String NAME = "parquet";

    private final ParquetSegmentOptions options;
    private final ValueColumns values;
    private final ParquetSegmentReader.Limits limits;
    /** Where the writers' Parquet buffers (pages, column values) come from: a counting one in tests. */
    private final ByteBufferAllocator writeBuffers;

    /** The default format: what ServiceLoader makes. */
    public ParquetSegmentFormat() {
        this(ParquetSegmentOptions.DEFAULT, ValueColumns.NONE);
    }

    public ParquetSegmentFormat(ParquetSegmentOptions options, ValueColumns values) {
        this(options, values, ParquetSegmentReader.Limits.DEFAULT);
    }

    ParquetSegmentFormat(ParquetSegmentOptions options, ValueColumns values, ParquetSegmentReader.Limits limits) {
        this(options, values, limits, HeapByteBufferAllocator.getInstance());
    }

    ParquetSegmentFormat(
            ParquetSegmentOptions options,
            ValueColumns values,
            ParquetSegmentReader.Limits limits,
            ByteBufferAllocator writeBuffers) {
        this.options = options;
        this.values = values;
        this.limits = limits;
        this.writeBuffers = writeBuffers;
    }

    @Override
    public int fileType() {
        return IndexValue.FILE_TYPE_PARQUET;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public SegmentReader openReader(ObjectStore objects, ByteBufAllocator allocator) {
        return new ParquetSegmentReader(objects, allocator, limits);
    }

    @Override
    public SegmentWriter newWriter(long streamId, long firstOffset, ObjectUpload out) {
        return new ParquetSegmentWriter(streamId, firstOffset, options, values, out, writeBuffers);
    }
}
