package dev.lakestream.segments;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;

/**
 * A segment's decoded footer, checked for what the reader relies on: our columns, the footer's metadata, one or more
 * row groups with {@code _lakestream_offset} statistics in ascending, non-overlapping order, and each row group's byte
 * range inside the file. Immutable; cached per object key.
 */
final class SegmentFooter {

    static final int TRAILER = 8; // footer length (int32 little-endian) + "PAR1"
    private static final byte[] MAGIC = "PAR1".getBytes(StandardCharsets.US_ASCII);

    final long fileSize;
    final ParquetMetadata metadata;
    final MessageType schema;
    final long streamId;
    final long firstOffset;
    final long endOffset;
    final long entryCount;
    final long rows;
    /** Per row group: the first entry's offset (min statistic), the byte range [start, end) of its core columns. */
    final long[] groupFirstOffset;

    final long[] groupStart;
    final long[] groupEnd;

    /**
     * The footer's length as the trailer in the last {@value #TRAILER} bytes of {@code tail} (the object's end) says.
     */
    static int footerLength(ByteBuffer tail, long fileSize) {
        if (tail.remaining() < TRAILER || fileSize < 12) {
            throw new BadSegmentException("is corrupt: " + fileSize + " bytes are too few for a Parquet file", null);
        }
        int end = tail.limit();
        for (int i = 0; i < 4; i++) {
            if (tail.get(end - 4 + i) != MAGIC[i]) {
                throw new BadSegmentException("is corrupt: it does not end in Parquet's magic PAR1", null);
            }
        }
        int length = tail.duplicate().order(ByteOrder.LITTLE_ENDIAN).getInt(end - TRAILER);
        if (length <= 0 || length > fileSize - TRAILER - 4) {
            throw new BadSegmentException(
                    "is corrupt: its trailer gives a footer of " + length + " bytes in a file of " + fileSize, null);
        }
        return length;
    }

    /** Decodes the footer found in {@code tail}, the last {@code tail.remaining()} bytes of the object. */
    static SegmentFooter parse(String key, long fileSize, ByteBuffer tail, ParquetReadOptions options) {
        int footerLength = footerLength(tail, fileSize);
        if (tail.remaining() < footerLength + TRAILER) {
            throw new IllegalArgumentException("tail too short for the footer");
        }
        ParquetMetadata metadata;
        FetchedInputFile in = new FetchedInputFile(key, fileSize).with(fileSize - tail.remaining(), tail);
        try (ParquetFileReader reader = new ParquetFileReader(in, options)) {
            metadata = reader.getFooter();
        } catch (IOException | RuntimeException e) {
            throw new BadSegmentException("is corrupt: its Parquet footer does not parse (" + e + ")", e);
        }
        return new SegmentFooter(fileSize, fileSize - TRAILER - footerLength, metadata);
    }

    private SegmentFooter(long fileSize, long footerStart, ParquetMetadata metadata) {
        this.fileSize = fileSize;
        this.metadata = metadata;
        this.schema = metadata.getFileMetaData().getSchema();
        checkColumn(SegmentColumns.ENTRY, PrimitiveTypeName.BINARY, Type.Repetition.OPTIONAL);
        checkColumn(SegmentColumns.OFFSET, PrimitiveTypeName.INT64, Type.Repetition.REQUIRED);
        checkColumn(SegmentColumns.RECORDS, PrimitiveTypeName.INT32, Type.Repetition.REQUIRED);
        checkColumn(SegmentColumns.ENTRY_INDEX, PrimitiveTypeName.INT32, Type.Repetition.REQUIRED);
        Map<String, String> kv = metadata.getFileMetaData().getKeyValueMetaData();
        String version = kv.get(SegmentColumns.KEY_VERSION);
        if (!SegmentColumns.VERSION.equals(version)) {
            throw new BadSegmentException(
                    "is not a segment this reader knows: " + SegmentColumns.KEY_VERSION + " is " + version + ", not "
                            + SegmentColumns.VERSION,
                    null);
        }
        this.streamId = number(kv, SegmentColumns.KEY_STREAM_ID);
        this.firstOffset = number(kv, SegmentColumns.KEY_FIRST_OFFSET);
        this.endOffset = number(kv, SegmentColumns.KEY_END_OFFSET);
        this.entryCount = number(kv, SegmentColumns.KEY_ENTRY_COUNT);
        List<BlockMetaData> blocks = metadata.getBlocks();
        int n = blocks.size();
        if (n == 0) {
            throw new BadSegmentException("is corrupt: its footer lists no row group", null);
        }
        groupFirstOffset = new long[n];
        groupStart = new long[n];
        groupEnd = new long[n];
        long rowSum = 0;
        long previousMax = Long.MIN_VALUE;
        for (int g = 0; g < n; g++) {
            BlockMetaData b = blocks.get(g);
            rowSum += b.getRowCount();
            long start = Long.MAX_VALUE;
            long end = 0;
            ColumnChunkMetaData offsets = null;
            for (ColumnChunkMetaData c : b.getColumns()) {
                if (!SegmentColumns.CORE.contains(c.getPath().toDotString())) {
                    continue; // a value column: the core columns come first and are fetched alone
                }
                start = Math.min(start, c.getStartingPos());
                end = Math.max(end, c.getStartingPos() + c.getTotalSize());
                if (c.getPath().toDotString().equals(SegmentColumns.OFFSET)) {
                    offsets = c;
                }
            }
            if (b.getRowCount() < 1 || start < 4 || end > footerStart || start >= end) {
                throw new BadSegmentException(
                        "is corrupt: row group " + g + " (" + b.getRowCount()
                                + " rows) lies at bytes [" + start + ", " + end
                                + "), outside the data of a file whose footer"
                                + " starts at " + footerStart,
                        null);
            }
            Statistics<?> stats = offsets == null ? null : offsets.getStatistics();
            if (stats == null || !stats.hasNonNullValue()) {
                throw new BadSegmentException(
                        "is corrupt: row group " + g + " has no " + SegmentColumns.OFFSET + " statistics", null);
            }
            long min = ((Number) stats.genericGetMin()).longValue();
            long max = ((Number) stats.genericGetMax()).longValue();
            if (min > max || min <= previousMax || (g == 0 && min != firstOffset) || max >= endOffset) {
                throw new BadSegmentException(
                        "is corrupt: row group " + g + "'s " + SegmentColumns.OFFSET
                                + " statistics [" + min + ", " + max
                                + "] do not follow the row group before (last entry at "
                                + previousMax + ") inside the segment's offsets [" + firstOffset + ", " + endOffset
                                + ")",
                        null);
            }
            previousMax = max;
            groupFirstOffset[g] = min;
            groupStart[g] = start;
            groupEnd[g] = end;
        }
        this.rows = rowSum;
        if (rows != endOffset - firstOffset) {
            throw new BadSegmentException(
                    "is corrupt: its row groups hold " + rows + " rows for the " + (endOffset - firstOffset)
                            + " messages of offsets [" + firstOffset + ", " + endOffset + ")",
                    null);
        }
    }

    private void checkColumn(String name, PrimitiveTypeName type, Type.Repetition repetition) {
        if (!schema.containsField(name)
                || !schema.getType(name).isPrimitive()
                || schema.getType(name).asPrimitiveType().getPrimitiveTypeName() != type
                || schema.getType(name).getRepetition() != repetition) {
            throw new BadSegmentException(
                    "is not a segment: it has no column " + repetition + " " + type + " " + name + " (schema: " + schema
                            + ")",
                    null);
        }
    }

    private static long number(Map<String, String> kv, String key) {
        String v = kv.get(key);
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new BadSegmentException("is corrupt: footer key " + key + " is " + v + ", not a number", e);
        }
    }

    int groups() {
        return groupFirstOffset.length;
    }

    /** The row group holding the entry that holds {@code offset} (which is inside the segment's offsets). */
    int groupHolding(long offset) {
        int g = 0;
        while (g + 1 < groupFirstOffset.length && groupFirstOffset[g + 1] <= offset) {
            g++;
        }
        return g;
    }

    /** The offset at which row group {@code g}'s last entry ends: the next group's first, or the segment's end. */
    long groupEndOffset(int g) {
        return g + 1 < groupFirstOffset.length ? groupFirstOffset[g + 1] : endOffset;
    }

    PrimitiveType column(String name) {
        return schema.getType(name).asPrimitiveType();
    }
}
