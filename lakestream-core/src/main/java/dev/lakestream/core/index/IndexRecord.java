package dev.lakestream.core.index;

import dev.lakestream.core.metadata.Record;

/**
 * One decoded offset-index record: it covers records {@code [startOffset, key.endOffset())} of one stream,
 * stored in the object {@code value.location()}.
 *
 * @param timestamp the metadata store's creation time of the record: the commit time of its entries (an overwrite, as
 *     compaction's switch makes, keeps it)
 * @param versionId the record's version as read: what a conditional overwrite of it compares
 * @param voided a stale owner's record, void for readers ({@link VoidedRecords}); as scanned, always false
 */
public record IndexRecord(IndexKey key, IndexValue value, long timestamp, long versionId, boolean voided) {

    public IndexRecord(IndexKey key, IndexValue value, long timestamp, long versionId) {
        this(key, value, timestamp, versionId, false);
    }

    /** This record, void. */
    public IndexRecord asVoided() {
        return new IndexRecord(key, value, timestamp, versionId, true);
    }

    public static IndexRecord of(Record r) {
        return new IndexRecord(
                IndexKey.parse(r.key()),
                IndexValue.decode(r.value(), r.key()),
                r.version().createdTimestamp(),
                r.version().versionId());
    }

    public long streamId() {
        return key.streamId();
    }

    public long startOffset() {
        return key.endOffset() - value.messageCount();
    }

    public long endOffset() {
        return key.endOffset();
    }

    /**
     * The offset of each covered entry's first record, in order.
     *
     * @throws IllegalStateException for a compacted record: its segment, not the index, locates its entries
     */
    public long[] entryOffsets() {
        if (value.isCompacted()) {
            throw new IllegalStateException("index record " + key.format() + " is compacted: the entries of offsets ["
                    + startOffset() + ", " + endOffset() + ") are located by its segment " + value.location());
        }
        int[] counts = value.entryRecordCounts();
        long[] offsets = new long[counts.length];
        long o = startOffset();
        for (int i = 0; i < counts.length; i++) {
            offsets[i] = o;
            o += counts[i];
        }
        return offsets;
    }
}
