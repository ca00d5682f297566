package dev.lakestream.core.objectstore;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * The bytes of one object to write, as a sequence of buffers that are written one after the other (a gathering
 * write), with the CRC32C of their concatenation. Lets a writer hand over the buffers its bytes already sit in,
 * without first copying them into one array.
 *
 * <p>The buffers are read from their position to their limit and never modified; the caller keeps them valid (and
 * unchanged) until the put's future completes.
 *
 * @param parts the buffers, in object order
 * @param length the total of their remaining bytes
 * @param crc32c the CRC32C of the concatenated bytes
 */
@SuppressWarnings("ArrayRecordComponent") // the buffers to write, in order; a body is never compared
public record ObjectBody(ByteBuffer[] parts, long length, int crc32c) {

    public ObjectBody {
        long total = 0;
        for (ByteBuffer p : parts) {
            total += p.remaining();
        }
        if (total != length) {
            throw new IllegalArgumentException("object body of " + parts.length + " parts holds " + total
                    + " bytes, not the " + length + " given");
        }
    }

    /** A body of the given parts, its checksum computed here. */
    public static ObjectBody of(ByteBuffer... parts) {
        CRC32C crc = new CRC32C();
        long length = 0;
        for (ByteBuffer p : parts) {
            length += p.remaining();
            crc.update(p.duplicate());
        }
        return new ObjectBody(parts, length, (int) crc.getValue());
    }

    /** Read-only views of the parts, positioned as given, for a store to consume without moving the caller's. */
    public ByteBuffer[] views() {
        ByteBuffer[] out = new ByteBuffer[parts.length];
        for (int i = 0; i < parts.length; i++) {
            out[i] = parts[i].asReadOnlyBuffer();
        }
        return out;
    }

    /** The bytes copied into one heap buffer: for stores that cannot write from several buffers. */
    public ByteBuffer copy() {
        if (length > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("object body of " + length + " bytes is too large for one buffer");
        }
        ByteBuffer out = ByteBuffer.allocate((int) length);
        for (ByteBuffer p : parts) {
            out.put(p.duplicate());
        }
        return out.flip();
    }
}
