package dev.lakestream.segments;

import dev.lakestream.core.log.LogEntry;
import java.nio.ByteBuffer;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.RecordConsumer;

/**
 * Writes an entry's rows straight to Parquet's {@link RecordConsumer}: no row objects in between. It has the shape of
 * parquet-hadoop's {@code WriteSupport} (prepare, then write) without extending it, because that class's abstract
 * {@code init} takes a Hadoop {@code Configuration}, and this module has no Hadoop.
 */
final class SegmentRowWriter {

    private final ValueColumns values;
    private final int firstValueField = SegmentColumns.CORE.size();
    private RecordConsumer consumer;

    SegmentRowWriter(ValueColumns values) {
        this.values = values;
    }

    /** Writes into {@code consumer} from now on (a new one per row group). */
    void prepareForWrite(RecordConsumer consumer) {
        this.consumer = consumer;
    }

    /** Writes the {@code entry.records()} rows of {@code entry}, whose raw bytes are {@code raw}. */
    void write(LogEntry entry, ByteBuffer raw) {
        for (int i = 0; i < entry.records(); i++) {
            consumer.startMessage();
            if (i == 0) {
                consumer.startField(SegmentColumns.ENTRY, 0);
                consumer.addBinary(Binary.fromReusedByteBuffer(raw));
                consumer.endField(SegmentColumns.ENTRY, 0);
            }
            consumer.startField(SegmentColumns.OFFSET, 1);
            consumer.addLong(entry.offset());
            consumer.endField(SegmentColumns.OFFSET, 1);
            consumer.startField(SegmentColumns.RECORDS, 2);
            consumer.addInteger(entry.records());
            consumer.endField(SegmentColumns.RECORDS, 2);
            consumer.startField(SegmentColumns.ENTRY_INDEX, 3);
            consumer.addInteger(i);
            consumer.endField(SegmentColumns.ENTRY_INDEX, 3);
            values.writeRow(entry, i, consumer, firstValueField);
            consumer.endMessage();
        }
    }
}
