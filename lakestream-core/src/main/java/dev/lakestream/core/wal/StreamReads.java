package dev.lakestream.core.wal;

import dev.lakestream.core.index.IndexRecord;

/**
 * What a reader keeps of one stream's recent reads: where the last few ended, so that a read starting at one of them
 * is known to be sequential even while other readers of the stream (a broker's subscriptions at other positions) read
 * elsewhere in between; and how many entries the stream's index records hold, so that a read scans about as many
 * records as it needs. Thread-safe.
 */
final class StreamReads {

    /** Sequential readers of one stream told apart; a further one takes the place of the least recent. */
    static final int TRACKED = 4;

    private final long[] ends = new long[TRACKED];
    private final long[] used = new long[TRACKED];
    private long clock;
    private int entriesPerRecord = 1;
    /** The compacted record the stream's last read went through, and when (monotonic), for the reads after it. */
    private IndexRecord compacted;

    private long compactedAtNanos;
    /** The end of the compacted record whose successor was last looked up for a reader reading on (-1: none). */
    private long hintedPast = -1;

    /**
     * How long a compacted record is read through without asking the index again: a merge or a trim that replaced it
     * is seen within this, and a segment it names stays in the store far longer (GC's safety margin).
     */
    static final long COMPACTED_RECORD_NANOS = 1_000_000_000L;

    StreamReads() {
        java.util.Arrays.fill(ends, -1);
    }

    /** Whether a read from {@code offset} continues where an earlier read ended. */
    synchronized boolean continues(long offset) {
        return indexOf(offset) >= 0;
    }

    /** Records that a read from {@code from} ended at {@code end}: it replaces the read it continued, if any. */
    synchronized void ended(long from, long end) {
        int slot = indexOf(from);
        if (slot < 0) {
            slot = 0;
            for (int i = 1; i < TRACKED; i++) {
                if (used[i] < used[slot]) {
                    slot = i;
                }
            }
        }
        ends[slot] = end;
        used[slot] = ++clock;
    }

    /** The fewest entries per index record the stream's last scan returned (1 before any). */
    synchronized int entriesPerRecord() {
        return entriesPerRecord;
    }

    synchronized void entriesPerRecord(int fewest) {
        this.entriesPerRecord = Math.max(1, fewest);
    }

    /** The compacted record last read through, if it holds {@code offset} and was found less than a second ago. */
    synchronized IndexRecord compactedHolding(long offset, long nowNanos) {
        if (compacted == null
                || nowNanos - compactedAtNanos > COMPACTED_RECORD_NANOS
                || offset < compacted.startOffset()
                || offset >= compacted.endOffset()) {
            return null;
        }
        return compacted;
    }

    synchronized void rememberCompacted(IndexRecord record, long nowNanos) {
        compacted = record;
        compactedAtNanos = nowNanos;
    }

    synchronized void forgetCompacted() {
        compacted = null;
    }

    /**
     * Whether the stream's next compacted record should be looked up for a reader that read on through {@code record}
     * up to {@code end}: once per record, when the read ended in the last quarter of it.
     */
    synchronized boolean nearsEndOf(IndexRecord record, long end) {
        long range = record.endOffset() - record.startOffset();
        if (end < record.endOffset() - range / 4 || end >= record.endOffset() || hintedPast == record.endOffset()) {
            return false;
        }
        hintedPast = record.endOffset();
        return true;
    }

    private int indexOf(long offset) {
        for (int i = 0; i < TRACKED; i++) {
            if (ends[i] == offset) {
                return i;
            }
        }
        return -1;
    }
}
