package dev.lakestream.iceberg;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.DataWriteResult;
import org.apache.iceberg.io.FanoutDataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Parquet data files of the range a materializer has read and not yet committed: rows go to a fan-out writer
 * (one open file per partition) for the table's current schema; a schema change closes the writer and opens one for
 * the new schema. Confined to the materializer's thread.
 */
final class RangeFiles {

    private static final Logger LOG = LoggerFactory.getLogger(RangeFiles.class);

    private final int partitionId;
    private final long targetFileSizeBytes;
    private final Clock clock;
    private final String where;

    private FanoutDataWriter<Record> writer;
    private Schema writerSchema;
    private final List<DataFile> closed = new ArrayList<>();

    private PartitionKey partitionKey;
    private InternalRecordWrapper keyWrapper;
    private Schema keySchema;
    private PartitionSpec keySpec;

    /**
     * @param partitionId the topic partition (part of the files' names)
     * @param where how log lines and errors name the materializer
     */
    RangeFiles(int partitionId, long targetFileSizeBytes, Clock clock, String where) {
        this.partitionId = partitionId;
        this.targetFileSizeBytes = targetFileSizeBytes;
        this.clock = clock;
        this.where = where;
    }

    /** Whether nothing was written since the last {@link #committed()} or {@link #delete}. */
    boolean isEmpty() {
        return writer == null && closed.isEmpty();
    }

    /** Writes a row of the table's current schema into its partition's file. */
    void write(Table table, Record row) {
        writerFor(table).write(row, table.spec(), partitionKey(table, row));
    }

    /** Closes the open files; returns every file of the range. */
    List<DataFile> close() {
        closeWriter();
        return List.copyOf(closed);
    }

    /** The files are in the table (or deliberately left in place): they are no longer this range's. */
    void committed() {
        closed.clear();
    }

    /** Abandons the range: closes the writer and deletes every file written (an undeletable one stays an orphan). */
    void delete(Table table) {
        try {
            closeWriter();
        } catch (RuntimeException e) {
            LOG.warn("{}: closing the abandoned writer failed: {}", where, e.toString());
        }
        for (DataFile f : closed) {
            try {
                table.io().deleteFile(f.location());
            } catch (RuntimeException e) {
                LOG.warn(
                        "{}: cannot delete uncommitted data file {} ({}); it is an orphan",
                        where,
                        f.location(),
                        e.toString());
            }
        }
        closed.clear();
    }

    private FanoutDataWriter<Record> writerFor(Table table) {
        Schema schema = table.schema();
        if (writer != null && writerSchema.schemaId() == schema.schemaId()) {
            return writer;
        }
        closeWriter();
        GenericFileWriterFactory factory = new GenericFileWriterFactory.Builder(table)
                .dataFileFormat(FileFormat.PARQUET)
                .dataSchema(schema)
                .build();
        OutputFileFactory files = OutputFileFactory.builderFor(table, partitionId, clock.millis())
                .format(FileFormat.PARQUET)
                .operationId(UUID.randomUUID().toString())
                .build();
        writer = new FanoutDataWriter<>(factory, files, table.io(), targetFileSizeBytes);
        writerSchema = schema;
        return writer;
    }

    /**
     * The row's partition, in one key object reused for every row (building a key and a wrapper per row cost more
     * than writing it; FanoutDataWriter copies the keys it keeps). Rebuilt when the table's schema or spec changes.
     */
    @SuppressWarnings("ReferenceEquality") // identity on purpose: a schema or spec change is a new object
    private PartitionKey partitionKey(Table table, Record row) {
        Schema schema = table.schema();
        PartitionSpec spec = table.spec();
        if (partitionKey == null || keySchema != schema || keySpec != spec) {
            partitionKey = new PartitionKey(spec, schema);
            keyWrapper = new InternalRecordWrapper(schema.asStruct());
            keySchema = schema;
            keySpec = spec;
        }
        partitionKey.partition(keyWrapper.wrap(row));
        return partitionKey;
    }

    private void closeWriter() {
        if (writer == null) {
            return;
        }
        FanoutDataWriter<Record> w = writer;
        writer = null;
        try {
            w.close();
        } catch (IOException e) {
            throw new UncheckedIOException(where + ": closing data files failed", e);
        }
        DataWriteResult result = w.result();
        closed.addAll(result.dataFiles());
    }
}
