package dev.lakestream.core.index;

import java.nio.ByteBuffer;
import me.lemire.integercompression.differential.IntegratedIntCompressor;

/**
 * Field 10 of an index value: the cumulative record count after each covered entry (five entries of 10
 * records: {@code [10, 20, 30, 40, 50]}), compressed with FastPFOR (differential, as the sequence is
 * increasing) and written as big-endian int32s, wrapped in {@code {1 compression = 1 (FastPFOR),
 * 2 uncompressed_size = 4 * count, 3 payload}}.
 */
final class EntryOffsetsCodec {

    private static final int FAST_PFOR = 1;

    private EntryOffsetsCodec() {}

    static byte[] encode(int[] recordCounts) {
        int[] cumulative = new int[recordCounts.length];
        int sum = 0;
        for (int i = 0; i < recordCounts.length; i++) {
            sum = Math.addExact(sum, recordCounts[i]);
            cumulative[i] = sum;
        }
        int[] compressed = new IntegratedIntCompressor().compress(cumulative);
        ByteBuffer payload = ByteBuffer.allocate(compressed.length * Integer.BYTES);
        for (int c : compressed) {
            payload.putInt(c);
        }
        IndexValue.ProtoWriter w = new IndexValue.ProtoWriter();
        w.varint(1, FAST_PFOR);
        w.varint(2, (long) cumulative.length * Integer.BYTES);
        w.bytes(3, payload.array());
        return w.toByteArray();
    }

    static int[] decode(byte[] message, String key) {
        IndexValue.ProtoReader r = new IndexValue.ProtoReader(ByteBuffer.wrap(message), key);
        long compression = FAST_PFOR;
        long uncompressedSize = -1;
        byte[] payload = null;
        while (r.hasMore()) {
            int tag = r.tag();
            switch (tag >>> 3) {
                case 1 -> compression = r.varint();
                case 2 -> uncompressedSize = r.varint();
                case 3 -> payload = r.bytes();
                default -> r.skip(tag);
            }
        }
        if (compression != FAST_PFOR) {
            throw new IndexFormatException(
                    key,
                    "entry offsets compressed with type " + compression + " (only FastPFOR = 1 is written or read)");
        }
        if (payload == null || payload.length % Integer.BYTES != 0) {
            throw new IndexFormatException(key, "entry offsets payload is missing or not whole int32s");
        }
        ByteBuffer in = ByteBuffer.wrap(payload);
        int[] compressed = new int[payload.length / Integer.BYTES];
        for (int i = 0; i < compressed.length; i++) {
            compressed[i] = in.getInt();
        }
        int[] cumulative;
        try {
            cumulative = new IntegratedIntCompressor().uncompress(compressed);
        } catch (RuntimeException e) {
            throw new IndexFormatException(key, "entry offsets do not decompress: " + e);
        }
        if (uncompressedSize >= 0 && uncompressedSize != (long) cumulative.length * Integer.BYTES) {
            throw new IndexFormatException(
                    key,
                    "entry offsets hold " + cumulative.length + " values, the header says "
                            + uncompressedSize / Integer.BYTES);
        }
        int[] counts = new int[cumulative.length];
        int previous = 0;
        for (int i = 0; i < cumulative.length; i++) {
            counts[i] = cumulative[i] - previous;
            if (counts[i] <= 0) {
                throw new IndexFormatException(key, "entry offsets are not strictly increasing at entry " + i);
            }
            previous = cumulative[i];
        }
        return counts;
    }
}
