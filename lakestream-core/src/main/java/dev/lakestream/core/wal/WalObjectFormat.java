package dev.lakestream.core.wal;

import dev.lakestream.core.codec.VarInt;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The binary layout of a WAL object: the index first, then the entry payloads, so a reader can fetch the
 * index with one small ranged GET and then exactly the bytes it needs.
 *
 * <pre>
 * object := indexLength:int32 | index[indexLength] | data[*]
 * index  := formatVersion:int32 (= 3)
 *           { streamId:int64  entryCount:varint  { dataOffset:varint  size:varint  records:varint }* }*
 * data   := the payloads; dataOffset is relative to the first byte of data
 * </pre>
 *
 * Integers are big-endian; varints are unsigned LEB128. This is Ursa's index format v3, byte for byte.
 * There is no checksum inside the object: the object store keeps a CRC32C of the whole object.
 */
public final class WalObjectFormat {

    public static final int FORMAT_VERSION = 3;

    private WalObjectFormat() {}

    /** Where one entry's payload sits in the data section, and how many records it holds. */
    public record EntryLocation(long dataOffset, int size, int records) {}

    /**
     * The parsed index of a WAL object: per stream, its entries in append order; {@code dataEnd} is where the last
     * entry of any stream ends, relative to the data section (the data section's length: writers pack it).
     */
    public record Index(int dataStart, long dataEnd, Map<Long, List<EntryLocation>> streams) {

        public List<EntryLocation> entriesOf(long streamId) {
            return streams.getOrDefault(streamId, List.of());
        }
    }

    /** The bytes a reader must fetch first: the length prefix, then (after reading it) the index. */
    public static final int LENGTH_PREFIX_BYTES = Integer.BYTES;

    /**
     * Encodes the index section (with its length prefix) for the given streams. The caller appends the
     * payloads, in the order and at the offsets the entry locations say.
     */
    public static ByteBuffer encodeIndex(Map<Long, List<EntryLocation>> streams) {
        int size = Integer.BYTES;
        for (Map.Entry<Long, List<EntryLocation>> s : streams.entrySet()) {
            size += Long.BYTES + VarInt.size(s.getValue().size());
            for (EntryLocation e : s.getValue()) {
                size += VarInt.size(e.dataOffset()) + VarInt.size(e.size()) + VarInt.size(e.records());
            }
        }
        ByteBuffer out = ByteBuffer.allocate(LENGTH_PREFIX_BYTES + size);
        out.putInt(size);
        out.putInt(FORMAT_VERSION);
        for (Map.Entry<Long, List<EntryLocation>> s : streams.entrySet()) {
            out.putLong(s.getKey());
            VarInt.write(out, s.getValue().size());
            for (EntryLocation e : s.getValue()) {
                VarInt.write(out, e.dataOffset());
                VarInt.write(out, e.size());
                VarInt.write(out, e.records());
            }
        }
        return out.flip();
    }

    /** Reads the index length from the first four bytes of an object. */
    public static int readIndexLength(ByteBuffer prefix, String objectKey) {
        if (prefix.remaining() < LENGTH_PREFIX_BYTES) {
            throw new WalObjectFormatException(objectKey, "object is shorter than its 4-byte index length");
        }
        int length = prefix.getInt(prefix.position());
        if (length < Integer.BYTES) {
            throw new WalObjectFormatException(objectKey, "index length " + length + " is negative or too small");
        }
        return length;
    }

    /**
     * Parses the index of a WAL object from a buffer that starts at the object's first byte and holds at
     * least the whole index. Checks every entry lies inside {@code objectSize} when it is known (>= 0).
     */
    public static Index decodeIndex(ByteBuffer object, String objectKey, long objectSize) {
        ByteBuffer in = object.duplicate();
        int length = readIndexLength(in, objectKey);
        in.getInt();
        if (in.remaining() < length) {
            throw new WalObjectFormatException(
                    objectKey, "index of " + length + " bytes is truncated to " + in.remaining() + " bytes");
        }
        int dataStart = LENGTH_PREFIX_BYTES + length;
        ByteBuffer index = in.slice(in.position(), length);
        int version = index.getInt();
        if (version != FORMAT_VERSION) {
            throw new WalObjectFormatException(
                    objectKey, "unknown WAL format version " + version + " (this reader knows " + FORMAT_VERSION + ")");
        }
        Map<Long, List<EntryLocation>> streams = new LinkedHashMap<>();
        long dataEnd = 0;
        try {
            while (index.hasRemaining()) {
                long streamId = index.getLong();
                long count = VarInt.read(index);
                if (count <= 0 || count > length) {
                    throw new WalObjectFormatException(
                            objectKey, "stream " + streamId + " has an entry count of " + count);
                }
                List<EntryLocation> entries = new ArrayList<>((int) count);
                for (int i = 0; i < count; i++) {
                    long dataOffset = VarInt.read(index);
                    long size = VarInt.read(index);
                    long records = VarInt.read(index);
                    if (size > Integer.MAX_VALUE || records <= 0 || records > Integer.MAX_VALUE) {
                        throw new WalObjectFormatException(
                                objectKey,
                                "stream " + streamId + " entry " + i + " has size " + size + " and " + records
                                        + " records");
                    }
                    if (objectSize >= 0 && dataStart + dataOffset + size > objectSize) {
                        throw new WalObjectFormatException(
                                objectKey,
                                "stream " + streamId + " entry " + i
                                        + " ends at byte " + (dataStart + dataOffset + size) + " past the object's "
                                        + objectSize + " bytes");
                    }
                    entries.add(new EntryLocation(dataOffset, (int) size, (int) records));
                    dataEnd = Math.max(dataEnd, dataOffset + size);
                }
                if (streams.put(streamId, List.copyOf(entries)) != null) {
                    throw new WalObjectFormatException(objectKey, "stream " + streamId + " appears twice in the index");
                }
            }
        } catch (java.nio.BufferUnderflowException | IllegalArgumentException e) {
            if (e instanceof WalObjectFormatException w) {
                throw w;
            }
            throw new WalObjectFormatException(objectKey, "index is malformed: " + e.getMessage());
        }
        return new Index(dataStart, dataEnd, Map.copyOf(streams));
    }
}
