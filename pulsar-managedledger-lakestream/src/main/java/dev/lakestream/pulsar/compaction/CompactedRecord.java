package dev.lakestream.pulsar.compaction;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import org.apache.bookkeeper.mledger.Position;
import org.apache.bookkeeper.mledger.PositionFactory;

/**
 * One record of a compacted stream: the message's original position in the topic, then its Pulsar bytes (message
 * metadata and payload, without broker entry metadata), so a compacted read hands out entries with the ids the topic
 * gave them.
 *
 * <pre>
 *   u16 magic 0x0C0A | u8 version 1 | i64 ledgerId | i64 entryId | headersAndPayload
 * </pre>
 */
final class CompactedRecord {

    static final int MAGIC = 0x0C0A;
    static final int VERSION = 1;
    static final int HEADER_SIZE = 2 + 1 + 8 + 8;

    private CompactedRecord() {}

    /** The record for a message at {@code position}; takes over the caller's reference to {@code headersAndPayload}. */
    static ByteBuf encode(Position position, ByteBuf headersAndPayload) {
        ByteBuf header = ByteBufAllocator.DEFAULT.buffer(HEADER_SIZE, HEADER_SIZE);
        header.writeShort(MAGIC)
                .writeByte(VERSION)
                .writeLong(position.getLedgerId())
                .writeLong(position.getEntryId());
        CompositeByteBuf out = ByteBufAllocator.DEFAULT.compositeBuffer(2);
        out.addComponents(true, header, headersAndPayload);
        return out;
    }

    /** The position of a record; fails naming {@code where} when the bytes are not a compacted record. */
    static Position position(ByteBuf record, String where) {
        check(record, where);
        int i = record.readerIndex();
        return PositionFactory.create(record.getLong(i + 3), record.getLong(i + 11));
    }

    /** The message bytes of a record: a slice sharing the record's reference count (not retained). */
    static ByteBuf message(ByteBuf record, String where) {
        check(record, where);
        return record.slice(record.readerIndex() + HEADER_SIZE, record.readableBytes() - HEADER_SIZE);
    }

    private static void check(ByteBuf record, String where) {
        int i = record.readerIndex();
        if (record.readableBytes() < HEADER_SIZE || record.getUnsignedShort(i) != MAGIC) {
            throw new IllegalStateException(
                    "not a compacted-message record at " + where + " (" + record.readableBytes() + " bytes)");
        }
        if (record.getUnsignedByte(i + 2) != VERSION) {
            throw new IllegalStateException(
                    "compacted-message record at " + where + " has unknown version " + record.getUnsignedByte(i + 2));
        }
    }
}
