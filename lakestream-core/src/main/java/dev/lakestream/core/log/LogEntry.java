package dev.lakestream.core.log;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

/**
 * One entry read back from a stream: the bytes of one append and where it sits.
 *
 * <p>A <em>void</em> entry holds offsets whose index record a stale owner committed after a newer owner had sealed the
 * stream (docs/layout.md, §5): its offsets exist, its payload is empty and no reader may deliver it as data. Its
 * writer never acknowledged it.
 *
 * @param offset offset of the entry's first record
 * @param records records in the entry
 * @param timestamp commit time of the index record that covers it (ms since the epoch)
 * @param payload the entry's bytes; the reader hands over one reference, the caller releases it
 * @param voided whether the entry is void (payload empty)
 */
public record LogEntry(long streamId, long offset, int records, long timestamp, ByteBuf payload, boolean voided) {

    public LogEntry(long streamId, long offset, int records, long timestamp, ByteBuf payload) {
        this(streamId, offset, records, timestamp, payload, false);
    }

    /** A void entry of {@code records} records at {@code offset}. */
    public static LogEntry voided(long streamId, long offset, int records, long timestamp) {
        return new LogEntry(streamId, offset, records, timestamp, Unpooled.EMPTY_BUFFER, true);
    }

    public long endOffset() {
        return offset + records;
    }

    /** This entry made void: its payload released, the same offsets. */
    public LogEntry asVoided() {
        if (voided) {
            return this;
        }
        payload.release();
        return voided(streamId, offset, records, timestamp);
    }
}
