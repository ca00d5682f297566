package dev.lakestream.core.segment;

/**
 * A finished segment: where its object is and what the compacted index record that will point at it says. The
 * object's bytes went to the store while the segment was written ({@link SegmentWriter}); they are stored once the
 * writer's upload completes.
 *
 * @param firstOffset offset of the first entry's first record
 * @param endOffset end of the last entry (the index record's key)
 * @param entries entries in the segment
 * @param payloadBytes the entries' bytes (the index record's {@code entry_size_bytes})
 * @param key the object's key
 * @param size the object's size in bytes
 */
public record SegmentFile(
        long streamId, long firstOffset, long endOffset, int entries, long payloadBytes, String key, long size) {

    public SegmentFile {
        if (endOffset <= firstOffset || entries < 1 || entries > endOffset - firstOffset || size < 1) {
            throw new IllegalArgumentException("segment " + key + " of stream " + streamId + " covering [" + firstOffset
                    + ", " + endOffset + ") with " + entries + " entries in " + size + " bytes");
        }
    }

    /** Records in the segment. */
    public long messages() {
        return endOffset - firstOffset;
    }
}
