package dev.lakestream.core.codec;

import java.nio.ByteBuffer;

/** Unsigned LEB128 variable-length integers (protobuf's varint), as used inside WAL object indexes, index values and cursor records. */
public final class VarInt {

    private VarInt() {}

    public static int size(long value) {
        int n = 1;
        while ((value & ~0x7FL) != 0) {
            value >>>= 7;
            n++;
        }
        return n;
    }

    public static void write(ByteBuffer out, long value) {
        while ((value & ~0x7FL) != 0) {
            out.put((byte) ((value & 0x7F) | 0x80));
            value >>>= 7;
        }
        out.put((byte) value);
    }

    /** Reads one varint; fails with {@link IllegalArgumentException} when it runs past the buffer or 64 bits. */
    public static long read(ByteBuffer in) {
        long result = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (!in.hasRemaining()) {
                throw new IllegalArgumentException("varint runs past the end of the buffer at byte " + in.position());
            }
            byte b = in.get();
            result |= (long) (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return result;
            }
        }
        throw new IllegalArgumentException("varint longer than 64 bits before byte " + in.position());
    }
}
