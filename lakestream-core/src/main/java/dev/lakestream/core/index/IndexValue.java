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
 * 3 file_type        varint  0 = RAW (a WAL object)
 * 4 index_type       varint  0 = NORMAL (object holds several streams), 1 = COMPACT (just this one)
 * 5 message_count    varint  records covered
 * 6 entry_size_bytes varint  payload bytes covered
 * 7 file_size        varint  size of the whole object
 * 8 offset_in_file   varint  -1 (the covered entries are found through the object's own index)
 * 9 entry_count      varint  entries covered
 * 10 entry_offsets   message {1 compression varint, 2 uncompressed_size varint, 3 payload bytes}
 *                            present when entry_count > 1: cumulative record counts per entry
 * 11 extra_data      repeated message {1 key string, 2 value string}
 * </pre>
 *
 * @param entryRecordCounts records per covered entry, in order (its prefix sums are what field 10 holds)
 * @param extraData free-form additions; this project writes {@link #EXTRA_INDEX_LENGTH}
 */
@SuppressWarnings("ArrayRecordComponent") // equals, hashCode and toString below cover the array by content
public record IndexValue(
        String location,
        boolean compact,
        long messageCount,
        long entrySizeBytes,
        long fileSize,
        int[] entryRecordCounts,
        Map<String, String> extraData) {

    public static final int VERSION = 3;
    public static final int FILE_TYPE_RAW = 0;
    /** Length of the object's index section (after its 4-byte length prefix): lets a reader fetch it in one ranged GET. */
    public static final String EXTRA_INDEX_LENGTH = "lakestream.indexLength";

    public IndexValue {
        Objects.requireNonNull(location, "location");
        entryRecordCounts = entryRecordCounts.clone();
        extraData = Map.copyOf(extraData);
    }

    public int entryCount() {
        return entryRecordCounts.length;
    }

    public byte[] encode() {
        ProtoWriter w = new ProtoWriter();
        w.varint(1, VERSION);
        w.string(2, location);
        w.varint(3, FILE_TYPE_RAW);
        w.varint(4, compact ? 1 : 0);
        w.varint(5, messageCount);
        w.varint(6, entrySizeBytes);
        w.varint(7, fileSize);
        w.varint(8, -1);
        w.varint(9, entryRecordCounts.length);
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
        if (fileType != FILE_TYPE_RAW) {
            throw new IndexFormatException(key, "file type " + fileType + " (compacted objects are not supported yet)");
        }
        if (location == null || location.isEmpty()) {
            throw new IndexFormatException(key, "index value has no object location");
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
                && compact == v.compact
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
        return "IndexValue[" + location + ", " + messageCount + " records in " + entryRecordCounts.length + " entries, "
                + entrySizeBytes + " bytes]";
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
