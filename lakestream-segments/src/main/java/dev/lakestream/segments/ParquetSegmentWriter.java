package dev.lakestream.segments;

import dev.lakestream.core.log.LogEntry;
import dev.lakestream.core.objectstore.ObjectUpload;
import dev.lakestream.core.segment.SegmentFile;
import dev.lakestream.core.segment.SegmentWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.parquet.bytes.ByteBufferAllocator;
import org.apache.parquet.column.ColumnWriteStore;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.compression.CompressionCodecFactory.BytesInputCompressor;
import org.apache.parquet.hadoop.ColumnChunkPageWriteStore;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.io.ColumnIOFactory;
import org.apache.parquet.io.MessageColumnIO;
import org.apache.parquet.schema.MessageType;

/**
 * Writes one Parquet segment into an upload: one row per message, row groups cut on entry boundaries once their
 * payload would pass {@link ParquetSegmentOptions#rowGroupPayloadBytes()}. Drives Parquet's file writer itself (rather
 * than {@code ParquetWriter}, which cuts row groups by its own size estimate, wherever that falls). Only the row group
 * being built is held (its pages, compressed, until it is flushed); a flushed row group goes to the upload, and the
 * footer at {@link #finish()}.
 */
final class ParquetSegmentWriter implements SegmentWriter {

    private final long streamId;
    private final long firstOffset;
    private final ParquetSegmentOptions options;
    private final MessageType schema;
    private final MessageColumnIO columnIO;
    private final ParquetProperties properties;
    private final BytesInputCompressor compressor;
    private final SegmentRowWriter rows;
    private final ObjectUpload out;
    private final UploadOutputFile file;
    private final ParquetFileWriter fileWriter;

    private ColumnChunkPageWriteStore pageStore;
    private ColumnWriteStore columnStore;
    private long groupRows;
    private long groupPayload;
    private long next;
    private int entries;
    private long payloadBytes;
    private boolean finished;

    ParquetSegmentWriter(
            long streamId,
            long firstOffset,
            ParquetSegmentOptions options,
            ValueColumns values,
            ObjectUpload out,
            ByteBufferAllocator allocator) {
        this.streamId = streamId;
        this.out = out;
        this.file = new UploadOutputFile(out);
        this.firstOffset = firstOffset;
        this.next = firstOffset;
        this.options = options;
        this.schema = SegmentColumns.schema(values.fields());
        this.columnIO = new ColumnIOFactory(false).getColumnIO(schema);
        this.rows = new SegmentRowWriter(values);
        this.properties = ParquetProperties.builder()
                .withWriterVersion(ParquetProperties.WriterVersion.PARQUET_1_0)
                // Raw entries and offsets hardly repeat: dictionaries would only be built and dropped.
                .withDictionaryEncoding(false)
                // Min/max of raw entries would put entry bytes into the footer; offsets' statistics are the seek.
                .withStatisticsEnabled(SegmentColumns.ENTRY, false)
                .withPageWriteChecksumEnabled(true)
                .withAllocator(allocator)
                .build();
        this.compressor = new SegmentCodecs(options.zstdLevel()).getCompressor(options.codec());
        try {
            this.fileWriter = new ParquetFileWriter(
                    file,
                    schema,
                    ParquetFileWriter.Mode.CREATE,
                    options.rowGroupPayloadBytes(),
                    0, // no padding: the object is read by ranges, not HDFS blocks
                    null,
                    properties);
            fileWriter.start();
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot start segment " + out.key() + " of stream " + streamId + " at " + firstOffset, e);
        }
        startRowGroup();
    }

    private void startRowGroup() {
        pageStore = new ColumnChunkPageWriteStore(
                compressor,
                schema,
                properties.getAllocator(),
                properties.getColumnIndexTruncateLength(),
                properties.getPageWriteChecksumEnabled());
        columnStore = properties.newColumnWriteStore(schema, pageStore, pageStore);
        rows.prepareForWrite(columnIO.getRecordWriter(columnStore));
        groupRows = 0;
        groupPayload = 0;
    }

    @Override
    public void append(LogEntry entry) {
        if (finished) {
            throw new IllegalStateException("segment of stream " + streamId + " from " + firstOffset + " is finished");
        }
        if (entry.streamId() != streamId || entry.offset() != next || entry.records() < 1) {
            throw new IllegalArgumentException("entry at " + entry.offset() + " (" + entry.records()
                    + " records) of stream " + entry.streamId() + " does not follow offset " + next + " of stream "
                    + streamId);
        }
        int size = entry.payload().readableBytes();
        if (groupRows > 0 && groupPayload + size > options.rowGroupPayloadBytes()) {
            flushRowGroup();
            startRowGroup();
        }
        rows.write(entry, entry.payload().nioBuffer());
        groupRows += entry.records();
        groupPayload += size;
        next = entry.endOffset();
        entries++;
        payloadBytes += size;
    }

    private void flushRowGroup() {
        try {
            fileWriter.startBlock(groupRows);
            columnStore.flush();
            pageStore.flushToFileWriter(fileWriter);
            fileWriter.endBlock();
            columnStore.close();
            pageStore.close();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write a row group of stream " + streamId + "'s segment", e);
        }
    }

    @Override
    public CompletableFuture<Void> ready() {
        return out.ready();
    }

    @Override
    public long payloadBytes() {
        return payloadBytes;
    }

    @Override
    public SegmentFile finish() {
        if (finished || entries == 0) {
            throw new IllegalStateException("segment of stream " + streamId + " from " + firstOffset
                    + (finished ? " is finished already" : " has no entries"));
        }
        finished = true;
        flushRowGroup();
        Map<String, String> meta = new LinkedHashMap<>();
        meta.put(SegmentColumns.KEY_VERSION, SegmentColumns.VERSION);
        meta.put(SegmentColumns.KEY_STREAM_ID, Long.toString(streamId));
        meta.put(SegmentColumns.KEY_FIRST_OFFSET, Long.toString(firstOffset));
        meta.put(SegmentColumns.KEY_END_OFFSET, Long.toString(next));
        meta.put(SegmentColumns.KEY_ENTRY_COUNT, Integer.toString(entries));
        meta.put(SegmentColumns.KEY_PAYLOAD_BYTES, Long.toString(payloadBytes));
        try {
            fileWriter.end(meta);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot end stream " + streamId + "'s segment " + out.key(), e);
        }
        file.flushPending();
        return new SegmentFile(streamId, firstOffset, next, entries, payloadBytes, out.key(), file.size());
    }

    @Override
    public void close() {
        if (!finished) {
            finished = true;
            columnStore.close();
            pageStore.close();
        }
    }
}
