package dev.lakestream.iceberg.schema;

import dev.lakestream.iceberg.pulsar.PulsarMessage;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.types.Types.NestedField;

/**
 * The columns every materialized table starts with, all named with the reserved prefix {@value #PREFIX}
 * (a value schema may not use it). Not {@code __}: engines use it for their own columns (pyarrow's scanner adds
 * {@code __batch_index}, {@code __filename}, ...). Documented in docs/iceberg.md, "Column mapping".
 */
public final class MetadataColumns {

    /** Reserved for these columns. */
    public static final String PREFIX = "_pulsar_";

    public static final String KEY = "_pulsar_key";
    public static final String PUBLISH_TIME = "_pulsar_publish_time";
    public static final String EVENT_TIME = "_pulsar_event_time";
    public static final String PROPERTIES = "_pulsar_properties";
    public static final String PRODUCER = "_pulsar_producer";
    public static final String SEQUENCE_ID = "_pulsar_sequence_id";
    public static final String PARTITION = "_pulsar_partition";
    public static final String LEDGER_ID = "_pulsar_ledger_id";
    public static final String ENTRY_ID = "_pulsar_entry_id";
    public static final String BATCH_INDEX = "_pulsar_batch_index";
    public static final String OFFSET = "_pulsar_offset";

    private MetadataColumns() {}

    /** The columns, with ids 1..11 (the catalog assigns the table's own). */
    public static List<NestedField> columns() {
        return List.of(
                NestedField.optional(
                        1, KEY, Types.StringType.get(), "message key (base64 text when the producer set it as bytes)"),
                NestedField.required(2, PUBLISH_TIME, Types.TimestampType.withZone(), "publish time"),
                NestedField.optional(3, EVENT_TIME, Types.TimestampType.withZone(), "event time, null when unset"),
                NestedField.optional(
                        4,
                        PROPERTIES,
                        Types.MapType.ofRequired(12, 13, Types.StringType.get(), Types.StringType.get()),
                        "message properties"),
                NestedField.optional(5, PRODUCER, Types.StringType.get(), "producer name"),
                NestedField.required(6, SEQUENCE_ID, Types.LongType.get(), "producer sequence id"),
                NestedField.optional(
                        7, PARTITION, Types.IntegerType.get(), "topic partition, null for a non-partitioned topic"),
                NestedField.required(8, LEDGER_ID, Types.LongType.get(), "Pulsar position: ledger id"),
                NestedField.required(9, ENTRY_ID, Types.LongType.get(), "Pulsar position: entry id"),
                NestedField.required(
                        10,
                        BATCH_INDEX,
                        Types.IntegerType.get(),
                        "Pulsar position: index in the batch, -1 when not batched"),
                NestedField.required(11, OFFSET, Types.LongType.get(), "offset of the entry in its stream"));
    }

    /** Sets the metadata columns of {@code row}. */
    public static void fill(Record row, PulsarMessage m, MessagePosition p) {
        row.setField(KEY, m.key());
        row.setField(PUBLISH_TIME, time(m.publishTime()));
        row.setField(EVENT_TIME, m.eventTime() == null ? null : time(m.eventTime()));
        row.setField(PROPERTIES, m.properties().isEmpty() ? null : m.properties());
        row.setField(PRODUCER, m.producerName());
        row.setField(SEQUENCE_ID, m.sequenceId());
        row.setField(PARTITION, p.partition() < 0 ? null : p.partition());
        row.setField(LEDGER_ID, p.ledgerId());
        row.setField(ENTRY_ID, p.entryId());
        row.setField(BATCH_INDEX, m.batchIndex());
        row.setField(OFFSET, p.offset());
    }

    static OffsetDateTime time(long epochMillis) {
        return OffsetDateTime.ofInstant(Instant.ofEpochMilli(epochMillis), ZoneOffset.UTC);
    }
}
