package dev.lakestream.segments;

import java.util.List;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;
import org.apache.parquet.schema.Types;

/**
 * The columns every Parquet segment has, their Iceberg field ids, and the footer's key-value metadata (docs/layout.md
 * §2.5.1). One row per message; the entry's raw bytes sit in the row of its first message only.
 *
 * <p>The field ids come from a block reserved for this project that counts down from {@code Integer.MAX_VALUE - 1000}:
 * below Iceberg's reserved range ({@code >= Integer.MAX_VALUE - 200}) and far above any id a table assigns (tables count
 * up from their last column id). Without ids pyiceberg and DuckDB refuse the file
 * (docs/design/segment-columns-spike.md); with them they, like Iceberg Java, ignore our columns.
 */
public final class SegmentColumns {

    /** The highest id of the block; the block's ids go down from here, one per column of ours. */
    public static final int RESERVED_ID_BLOCK_TOP = Integer.MAX_VALUE - 1000;

    /** {@code optional binary}: the entry's raw bytes in the row of its first message, null in its other rows. */
    public static final String ENTRY = "_lakestream_entry";

    public static final int ENTRY_ID = RESERVED_ID_BLOCK_TOP; // 2147482647

    /** {@code required int64}: the entry's first offset, in each of its rows; min/max statistics locate row groups. */
    public static final String OFFSET = "_lakestream_offset";

    public static final int OFFSET_ID = RESERVED_ID_BLOCK_TOP - 1; // 2147482646

    /** {@code required int32}: messages (records) in the entry, in each of its rows. */
    public static final String RECORDS = "_lakestream_records";

    public static final int RECORDS_ID = RESERVED_ID_BLOCK_TOP - 2; // 2147482645

    /** {@code required int32}: the row's message index in its entry, 0 to records - 1. */
    public static final String ENTRY_INDEX = "_lakestream_entry_index";

    public static final int ENTRY_INDEX_ID = RESERVED_ID_BLOCK_TOP - 3; // 2147482644

    /** Names of the core columns, in the file's column order (they come first, before any value columns). */
    public static final List<String> CORE = List.of(ENTRY, OFFSET, RECORDS, ENTRY_INDEX);

    /** The Parquet message type's name. */
    public static final String MESSAGE_NAME = "lakestream_segment";

    /** Footer key: the segment format's version, {@value #VERSION}. A reader refuses other versions. */
    public static final String KEY_VERSION = "lakestream.segment.version";

    public static final String VERSION = "1";

    /** Footer key: the stream id (decimal). */
    public static final String KEY_STREAM_ID = "lakestream.segment.streamId";

    /** Footer key: the first entry's first offset (decimal). */
    public static final String KEY_FIRST_OFFSET = "lakestream.segment.firstOffset";

    /** Footer key: the last entry's end offset, exclusive (decimal). */
    public static final String KEY_END_OFFSET = "lakestream.segment.endOffset";

    /** Footer key: entries in the segment (decimal). */
    public static final String KEY_ENTRY_COUNT = "lakestream.segment.entryCount";

    /** Footer key: the entries' payload bytes (decimal). */
    public static final String KEY_PAYLOAD_BYTES = "lakestream.segment.payloadBytes";

    private SegmentColumns() {}

    /** The file's schema: the core columns, then {@code valueFields} (which must not use our names or ids). */
    public static MessageType schema(List<Type> valueFields) {
        for (Type t : valueFields) {
            if (t.getName().startsWith("_lakestream_")
                    || (t.getId() != null && t.getId().intValue() > RESERVED_ID_BLOCK_TOP - 100)) {
                throw new IllegalArgumentException("value column " + t + " uses a name or field id reserved for the"
                        + " segment's own columns (_lakestream_*, ids above " + (RESERVED_ID_BLOCK_TOP - 100) + ")");
            }
        }
        Types.MessageTypeBuilder b = Types.buildMessage();
        b.optional(PrimitiveTypeName.BINARY).id(ENTRY_ID).named(ENTRY);
        b.required(PrimitiveTypeName.INT64)
                .as(LogicalTypeAnnotation.intType(64, true))
                .id(OFFSET_ID)
                .named(OFFSET);
        b.required(PrimitiveTypeName.INT32)
                .as(LogicalTypeAnnotation.intType(32, true))
                .id(RECORDS_ID)
                .named(RECORDS);
        b.required(PrimitiveTypeName.INT32)
                .as(LogicalTypeAnnotation.intType(32, true))
                .id(ENTRY_INDEX_ID)
                .named(ENTRY_INDEX);
        b.addFields(valueFields.toArray(Type[]::new));
        return b.named(MESSAGE_NAME);
    }
}
