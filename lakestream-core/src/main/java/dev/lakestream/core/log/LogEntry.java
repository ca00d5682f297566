package dev.lakestream.core.log;

import io.netty.buffer.ByteBuf;

/**
 * One entry read back from a stream: the bytes of one append and where it sits.
 *
 * @param offset offset of the entry's first record
 * @param records records in the entry
 * @param timestamp commit time of the index record that covers it (ms since the epoch)
 * @param payload the entry's bytes; the reader hands over one reference, the caller releases it
 */
public record LogEntry(long streamId, long offset, int records, long timestamp, ByteBuf payload) {

    public long endOffset() {
        return offset + records;
    }
}
