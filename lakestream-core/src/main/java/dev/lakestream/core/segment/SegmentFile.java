package dev.lakestream.core.segment;

import java.nio.ByteBuffer;

/**
 * A finished segment: its object's bytes and what the compacted index record that will point at it says.
 *
 * @param firstOffset offset of the first entry's first record
 * @param endOffset end of the last entry (the index record's key)
 * @param entries entries in the segment
 * @param payloadBytes the entries' bytes (the index record's {@code entry_size_bytes})
 * @param bytes the object's bytes (position to limit)
 */
public record SegmentFile(
        long streamId, long firstOffset, long endOffset, int entries, long payloadBytes, ByteBuffer bytes) {

    public SegmentFile {
        if (endOffset <= firstOffset || entries < 1 || entries > endOffset - firstOffset) {
            throw new IllegalArgumentException("segment of stream " + streamId + " covering [" + firstOffset + ", "
                    + endOffset + ") with " + entries + " entries");
        }
    }

    /** The object's size in bytes. */
    public long size() {
        return bytes.remaining();
    }

    /** Records in the segment. */
    public long messages() {
        return endOffset - firstOffset;
    }
}
