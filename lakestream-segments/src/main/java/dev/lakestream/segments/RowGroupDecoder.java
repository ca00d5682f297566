package dev.lakestream.segments;

import java.io.IOException;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnReader;
import org.apache.parquet.column.impl.ColumnReadStoreImpl;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.Converter;
import org.apache.parquet.io.api.GroupConverter;
import org.apache.parquet.io.api.PrimitiveConverter;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type;
import org.apache.parquet.schema.Types;

/**
 * Decodes the core columns of one row group from fetched bytes, column by column with Parquet's low-level column
 * readers (values read directly, no record assembly), checking that the rows form whole, contiguous entries, and hands
 * the entries to a sink.
 */
final class RowGroupDecoder {

    /** Values are read from the column readers directly; Parquet wants a converter tree all the same. */
    private static final GroupConverter NO_CONVERTER = new GroupConverter() {
        private final PrimitiveConverter primitive = new PrimitiveConverter() {};

        @Override
        public Converter getConverter(int fieldIndex) {
            return primitive;
        }

        @Override
        public void start() {}

        @Override
        public void end() {}
    };

    private RowGroupDecoder() {}

    static void decode(
            SegmentFooter footer, int g, FetchedInputFile in, ParquetReadOptions options, EntrySink collector) {
        // The core columns alone, with the file's own types: value columns (a later writer's) are not decoded here.
        MessageType projection = Types.buildMessage()
                .addFields(
                        SegmentColumns.CORE.stream().map(footer.schema::getType).toArray(Type[]::new))
                .named(SegmentColumns.MESSAGE_NAME);
        try (ParquetFileReader reader = ParquetFileReader.open(in, footer.metadata, options, in.newStream())) {
            reader.setRequestedSchema(projection);
            PageReadStore pages = reader.readRowGroup(g);
            ColumnReadStoreImpl store = new ColumnReadStoreImpl(
                    pages,
                    NO_CONVERTER,
                    projection,
                    footer.metadata.getFileMetaData().getCreatedBy());
            ColumnReader entry = store.getColumnReader(column(projection, SegmentColumns.ENTRY));
            ColumnReader offset = store.getColumnReader(column(projection, SegmentColumns.OFFSET));
            ColumnReader records = store.getColumnReader(column(projection, SegmentColumns.RECORDS));
            ColumnReader index = store.getColumnReader(column(projection, SegmentColumns.ENTRY_INDEX));
            int rawLevel = entry.getDescriptor().getMaxDefinitionLevel();
            long rows = pages.getRowCount();
            long groupEnd = footer.groupEndOffset(g);
            long expected = footer.groupFirstOffset[g];
            long entryOffset = -1;
            int entryRecords = 0;
            int nextIndex = 0;
            for (long row = 0; row < rows; row++) {
                Binary raw = entry.getCurrentDefinitionLevel() == rawLevel ? entry.getBinary() : null;
                entry.consume();
                long o = offset.getLong();
                offset.consume();
                int n = records.getInteger();
                records.consume();
                int i = index.getInteger();
                index.consume();
                if (nextIndex == entryRecords) {
                    if (collector.full()) {
                        return;
                    }
                    if (i != 0 || raw == null || o != expected || n < 1 || o + n > groupEnd) {
                        throw rowProblem(g, row, o, n, i, raw != null, "an entry's first row at offset " + expected);
                    }
                    entryOffset = o;
                    entryRecords = n;
                    nextIndex = 1;
                    expected = o + n;
                    collector.offer(o, n, raw);
                } else {
                    if (i != nextIndex || raw != null || o != entryOffset || n != entryRecords) {
                        throw rowProblem(
                                g,
                                row,
                                o,
                                n,
                                i,
                                raw != null,
                                "row " + nextIndex + " of the entry at " + entryOffset + " (" + entryRecords
                                        + " records)");
                    }
                    nextIndex++;
                }
            }
            if (nextIndex != entryRecords || expected != groupEnd) {
                throw new BadSegmentException(
                        "is corrupt: row group " + g + " ends at offset " + expected
                                + " (row " + nextIndex + " of " + entryRecords + " of its last entry), where the next"
                                + " begins at " + groupEnd,
                        null);
            }
        } catch (BadSegmentException e) {
            throw e;
        } catch (IOException | RuntimeException e) {
            throw new BadSegmentException(
                    "is corrupt: row group " + g + " (bytes [" + footer.groupStart[g] + ", " + footer.groupEnd[g]
                            + ")) does not decode (" + e + ")",
                    e);
        }
    }

    private static ColumnDescriptor column(MessageType schema, String name) {
        return schema.getColumnDescription(new String[] {name});
    }

    private static BadSegmentException rowProblem(
            int g, long row, long offset, int records, int index, boolean hasRaw, String expected) {
        return new BadSegmentException(
                "is corrupt: row " + row + " of row group " + g + " (offset " + offset + ", "
                        + records + " records, entry index " + index + (hasRaw ? ", with" : ", without")
                        + " the raw entry) is not " + expected,
                null);
    }
}
