package dev.lakestream.core.index;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The value of one offset-index record: where the covered entries of one stream live, in Ursa's
 * {@code EntryIndex} v3 protobuf encoding (proto2), hand-encoded here so the core needs no protobuf runtime.
 *
 * <pre>
 * 1 version          varint  always 3
 * 2 location         string  object key of the WAL object (relative to the store's root)
 * 3 file_type        varint  0 = RAW (a WAL object), 1 = PARQUET (a compacted segment of this stream alone); others
 *                            decode, and a read of them fails naming the record unless a segment format reads them
 * 4 index_type       varint  0 = NORMAL (object holds several streams), 1 = COMPACT (just this one)
 * 5 message_count    varint  records covered
 * 6 entry_size_bytes varint  payload bytes covered
 * 7 file_size        varint  size of the whole object
 * 8 offset_in_file   varint  -1 (the covered entries are found through the object's own index)
 * 9 entry_count      varint  entries covered
 * 10 entry_offsets   message {1 compression varint, 2 uncompressed_size varint, 3 payload bytes}
 *                            present when entry_count > 1 in a RAW record: cumulative record counts per entry;
 *                            absent in compacted records (the segment itself locates its entries)
 * 11 extra_data      repeated message {1 key string, 2 value string}
 * </pre>
 *
 * @param fileType {@link #FILE_TYPE_RAW} for a WAL object; any other value for a compacted segment
 * @param entryCount entries covered
 * @param entryRecordCounts records per covered entry, in order (its prefix sums are what field 10 holds); empty in a
 *     compacted record, whose segment locates its entries
 * @param extraData free-form additions; this project writes {@link #EXTRA_INDEX_LENGTH}
 */
@SuppressWarnings("ArrayRecordComponent") // equals, hashCode and toString below cover the array by content
public record IndexValue(
        String location,
        int fileType,
        boolean compact,
        long messageCount,
        long entrySizeBytes,
        long fileSize,
        int entryCount,
        int[] entryRecordCounts,
        Map<String, String> extraData) {

    public static final int VERSION = 3;
    public static final int FILE_TYPE_RAW = 0;
    /** Ursa's compacted objects and ours: a stream's range in a Parquet file of its own. */
    public static final int FILE_TYPE_PARQUET = 1;
    /** Length of the object's index section (after its 4-byte length prefix): lets a reader fetch it in one ranged GET. */
    public static final String EXTRA_INDEX_LENGTH = "lakestream.indexLength";
    /**
     * The write epoch ({@code /lakestream/fences/<streamId>}) its writer held when it committed a RAW record: a record
     * of an older epoch that starts at or past a newer owner's seal is void (docs/layout.md, §5). Absent: never void.
     */
    public static final String EXTRA_EPOCH = "lakestream.epoch";
    /**
     * In a compacted record: the offset ranges of void entries it holds ({@link VoidedRanges}): compaction keeps them
     * void, with empty payloads in the segment.
     */
    public static final String EXTRA_VOIDED = "lakestream.voided";

    public IndexValue {
        Objects.requireNonNull(location, "location");
        entryRecordCounts = entryRecordCounts.clone();
        extraData = Map.copyOf(extraData);
        if (fileType < 0 || entryCount < 0 || messageCount < 0) {
            throw new IllegalArgumentException("negative file type, entry or message count: " + location);
        }
        if (fileType == FILE_TYPE_RAW ? entryRecordCounts.length != entryCount : entryRecordCounts.length != 0) {
            throw new IllegalArgumentException("entry record counts of " + location + " disagree with its " + entryCount
                    + " entries (file type " + fileType + ")");
        }
    }

    /** A RAW record: entries of a WAL object. */
    public IndexValue(
            String location,
            boolean compact,
            long messageCount,
            long entrySizeBytes,
            long fileSize,
            int[] entryRecordCounts,
            Map<String, String> extraData) {
        this(
                location,
                FILE_TYPE_RAW,
                compact,
                messageCount,
                entrySizeBytes,
                fileSize,
                entryRecordCounts.length,
                entryRecordCounts,
                extraData);
    }

    /**
     * A compacted record: {@code entryCount} entries holding {@code messageCount} records in the segment object
     * {@code location} ({@code fileSize} bytes) of the one stream it belongs to.
     */
    public static IndexValue compacted(
            String location,
            int fileType,
            long messageCount,
            long entrySizeBytes,
            long fileSize,
            int entryCount,
            Map<String, String> extraData) {
        if (fileType == FILE_TYPE_RAW) {
            throw new IllegalArgumentException("a compacted record needs a file type other than RAW: " + location);
        }
        return new IndexValue(
                location, fileType, true, messageCount, entrySizeBytes, fileSize, entryCount, new int[0], extraData);
    }

    /** The write epoch its writer held ({@link #EXTRA_EPOCH}), 0 when it names none. */
    public long epoch() {
        String e = extraData.get(EXTRA_EPOCH);
        if (e == null) {
            return 0;
        }
        try {
            return Long.parseLong(e);
        } catch (NumberFormatException x) {
            throw new IndexFormatException(location, EXTRA_EPOCH + " is not a number: " + e);
        }
    }

    /** Whether the record points at a compacted segment rather than a WAL object. */
    public boolean isCompacted() {
        return fileType != FILE_TYPE_RAW;
    }

    public byte[] encode() {
        ProtoWriter w = new ProtoWriter();
        w.varint(1, VERSION);
        w.string(2, location);
        w.varint(3, fileType);
        w.varint(4, compact ? 1 : 0);
        w.varint(5, messageCount);
        w.varint(6, entrySizeBytes);
        w.varint(7, fileSize);
        w.varint(8, -1);
        w.varint(9, entryCount);
        if (entryRecordCounts.length > 1) {
            w.bytes(10, EntryOffsetsCodec.encode(entryRecordCounts));
        }
        extraData.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e -> {
            ProtoWriter kv = new ProtoWriter();
            kv.string(1, e.getKey());
            kv.string(2, e.getValue());
            w.bytes(11, kv.toByteArray());
        });
        return w.toByteArray();
    }

    /** Decodes a value; {@code key} is only for the error message. */
    public static IndexValue decode(byte[] bytes, String key) {
        ProtoReader r = new ProtoReader(ByteBuffer.wrap(bytes), key);
        String location = null;
        long version = 0;
        long fileType = 0;
        boolean compact = false;
        long messageCount = 0;
        long entrySize = 0;
        long fileSize = 0;
        long entryCount = 1;
        int[] counts = null;
        Map<String, String> extra = new LinkedHashMap<>();
        while (r.hasMore()) {
            int tag = r.tag();
            switch (tag >>> 3) {
                case 1 -> version = r.varint();
                case 2 -> location = r.string();
                case 3 -> fileType = r.varint();
                case 4 -> compact = r.varint() == 1;
                case 5 -> messageCount = r.varint();
                case 6 -> entrySize = r.varint();
                case 7 -> fileSize = r.varint();
                case 8 -> r.varint();
                case 9 -> entryCount = r.varint();
                case 10 -> counts = EntryOffsetsCodec.decode(r.bytes(), key);
                case 11 -> {
                    ProtoReader kv = new ProtoReader(ByteBuffer.wrap(r.bytes()), key);
                    String k = null;
                    String v = "";
                    while (kv.hasMore()) {
                        int t = kv.tag();
                        switch (t >>> 3) {
                            case 1 -> k = kv.string();
                            case 2 -> v = kv.string();
                            default -> kv.skip(t);
                        }
                    }
                    if (k != null) {
                        extra.put(k, v);
                    }
                }
                default -> r.skip(tag);
            }
        }
        if (version != VERSION) {
            throw new IndexFormatException(
                    key, "index value version " + version + " (this reader knows " + VERSION + ")");
        }
        if (fileType < 0 || fileType > Integer.MAX_VALUE) {
            throw new IndexFormatException(key, "file type " + fileType);
        }
        if (location == null || location.isEmpty()) {
            throw new IndexFormatException(key, "index value has no object location");
        }
        if (entryCount < 0 || entryCount > Integer.MAX_VALUE || messageCount < 0) {
            throw new IndexFormatException(key, entryCount + " entries, " + messageCount + " messages");
        }
        if (fileType != FILE_TYPE_RAW) {
            // The segment locates its entries; a reader of its file type reads them, or the read fails naming it.
            return compacted(location, (int) fileType, messageCount, entrySize, fileSize, (int) entryCount, extra);
        }
        if (counts == null) {
            if (entryCount != 1) {
                throw new IndexFormatException(key, entryCount + " entries but no entry offsets");
            }
            counts = new int[] {Math.toIntExact(messageCount)};
        }
        if (counts.length != entryCount || Arrays.stream(counts).asLongStream().sum() != messageCount) {
            throw new IndexFormatException(
                    key,
                    "entry offsets disagree with entry count " + entryCount + " and message count " + messageCount);
        }
        return new IndexValue(location, compact, messageCount, entrySize, fileSize, counts, extra);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof IndexValue v
                && location.equals(v.location)
                && fileType == v.fileType
                && compact == v.compact
                && entryCount == v.entryCount
                && messageCount == v.messageCount
                && entrySizeBytes == v.entrySizeBytes
                && fileSize == v.fileSize
                && Arrays.equals(entryRecordCounts, v.entryRecordCounts)
                && extraData.equals(v.extraData);
    }

    @Override
    public int hashCode() {
        return Objects.hash(location, messageCount, fileSize, Arrays.hashCode(entryRecordCounts));
    }

    @Override
    public String toString() {
        return "IndexValue[" + location + (isCompacted() ? " (compacted, file type " + fileType + ")" : "") + ", "
                + messageCount + " records in " + entryCount + " entries, " + entrySizeBytes + " bytes]";
    }

    /** Minimal protobuf wire-format writer: varint and length-delimited fields only. */
    static final class ProtoWriter {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream(64);

        void varint(int field, long value) {
            raw((long) field << 3);
            raw(value);
        }

        void string(int field, String value) {
            bytes(field, value.getBytes(StandardCharsets.UTF_8));
        }

        void bytes(int field, byte[] value) {
            raw(((long) field << 3) | 2);
            raw(value.length);
            out.writeBytes(value);
        }

        private void raw(long v) {
            while ((v & ~0x7FL) != 0) {
                out.write((int) ((v & 0x7F) | 0x80));
                v >>>= 7;
            }
            out.write((int) v);
        }

        byte[] toByteArray() {
            return out.toByteArray();
        }
    }

    /** Minimal protobuf wire-format reader; errors name the index key being decoded. */
    static final class ProtoReader {
        private final ByteBuffer in;
        private final String key;

        ProtoReader(ByteBuffer in, String key) {
            this.in = in;
            this.key = key;
        }

        boolean hasMore() {
            return in.hasRemaining();
        }

        int tag() {
            return (int) varint();
        }

        long varint() {
            try {
                return dev.lakestream.core.codec.VarInt.read(in);
            } catch (IllegalArgumentException e) {
                throw new IndexFormatException(key, e.getMessage());
            }
        }

        byte[] bytes() {
            long n = varint();
            if (n < 0 || n > in.remaining()) {
                throw new IndexFormatException(key, "field of " + n + " bytes runs past the value's end");
            }
            byte[] b = new byte[(int) n];
            in.get(b);
            return b;
        }

        String string() {
            return new String(bytes(), StandardCharsets.UTF_8);
        }

        void skip(int tag) {
            switch (tag & 7) {
                case 0 -> varint();
                case 1 -> advance(8);
                case 2 -> bytes();
                case 5 -> advance(4);
                default -> throw new IndexFormatException(key, "unsupported protobuf wire type " + (tag & 7));
            }
        }

        private void advance(int n) {
            if (in.remaining() < n) {
                throw new IndexFormatException(key, "value is truncated");
            }
            in.position(in.position() + n);
        }
    }
}
