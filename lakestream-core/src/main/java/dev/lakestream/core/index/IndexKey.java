package dev.lakestream.core.index;

/**
 * The metadata-store key of one offset-index record: {@code %020d(streamId)-%020d(endOffset)-%020d(cumulativeSize)}.
 *
 * <p>The key sits at the <em>end</em> of the range it covers: {@code endOffset} is exclusive (the first
 * offset after the covered records) and {@code cumulativeSize} is the stream's total payload bytes up to
 * and including them. Zero padding makes the byte order of keys the order of (stream, offset). The
 * records are written with the stream id (unpadded decimal) as partition key, so one stream's whole
 * index lives on one shard. A sequence-key put on {@link #prefix(long)} with deltas {@code [records, bytes]}
 * makes the store assign exactly this key.
 */
public record IndexKey(long streamId, long endOffset, long cumulativeSize) {

    private static final int FIELD = 20;
    private static final int LENGTH = FIELD * 3 + 2;

    public IndexKey {
        if (streamId < 0 || endOffset < 0 || cumulativeSize < 0) {
            throw new IllegalArgumentException("negative field in index key: stream " + streamId + ", end offset "
                    + endOffset + ", cumulative size " + cumulativeSize);
        }
    }

    /** The key prefix of a stream's records, which is also the key of its sequence-key puts. */
    public static String prefix(long streamId) {
        return pad(streamId);
    }

    /** The partition key of every record of a stream. */
    public static String partitionKey(long streamId) {
        return Long.toString(streamId);
    }

    /** The lowest possible key of a stream (below every record of it). */
    public static String lowest(long streamId) {
        return pad(streamId) + "-";
    }

    /** A key above every record of a stream. */
    public static String highest(long streamId) {
        return pad(streamId) + "-~";
    }

    /**
     * A key that sorts after every record whose end offset is {@code <= offset} and before every record
     * whose end offset is {@code > offset}: a HIGHER get from it finds the record covering {@code offset}.
     */
    public static String coveringSearchKey(long streamId, long offset) {
        return pad(streamId) + "-" + pad(offset) + "-~";
    }

    /**
     * A key the writer deletes (and never writes) as a barrier on the stream's shard before it checks whether a
     * commit whose answer was lost landed; it sorts after every record of the stream and before the next stream's.
     */
    public static String commitBarrierKey(long streamId) {
        return pad(streamId) + "~commit-barrier";
    }

    public String format() {
        return pad(streamId) + "-" + pad(endOffset) + "-" + pad(cumulativeSize);
    }

    @Override
    public String toString() {
        return format();
    }

    /** Parses a key written by {@link #format()} or assigned by a sequence-key put. */
    public static IndexKey parse(String key) {
        if (key.length() != LENGTH || key.charAt(FIELD) != '-' || key.charAt(2 * FIELD + 1) != '-') {
            throw new IllegalArgumentException("not an offset-index key: '" + key + "'");
        }
        try {
            return new IndexKey(
                    Long.parseLong(key, 0, FIELD, 10),
                    Long.parseLong(key, FIELD + 1, 2 * FIELD + 1, 10),
                    Long.parseLong(key, 2 * FIELD + 2, LENGTH, 10));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not an offset-index key: '" + key + "'", e);
        }
    }

    /** Whether {@code key} looks like an index key of {@code streamId} (prefix check only). */
    public static boolean belongsTo(String key, long streamId) {
        return key.length() == LENGTH && key.startsWith(pad(streamId)) && key.charAt(FIELD) == '-';
    }

    private static String pad(long v) {
        String s = Long.toString(v);
        return "0".repeat(FIELD - s.length()) + s;
    }
}
