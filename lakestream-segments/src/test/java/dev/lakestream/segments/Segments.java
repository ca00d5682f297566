package dev.lakestream.segments;

import dev.lakestream.core.index.IndexKey;
import dev.lakestream.core.index.IndexRecord;
import dev.lakestream.core.index.IndexValue;
import dev.lakestream.core.log.LogEntry;
import dev.lakestream.core.objectstore.ObjectStore;
import dev.lakestream.core.segment.SegmentFile;
import dev.lakestream.core.segment.SegmentFormat;
import dev.lakestream.core.segment.SegmentWriter;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.zip.CRC32;

/** Test entries, segments written from them, and the compacted records that point at them. */
final class Segments {

    /** One entry as a reader must find it. */
    record Expected(long offset, int records, int length, long crc) {
        long end() {
            return offset + records;
        }
    }

    /** A stream's entries: their bytes and what they look like. */
    record Entries(long streamId, long firstOffset, List<byte[]> payloads, List<Expected> expected) {
        long endOffset() {
            return expected.get(expected.size() - 1).end();
        }

        long payloadBytes() {
            return expected.stream().mapToLong(Expected::length).sum();
        }
    }

    private Segments() {}

    /** {@code count} entries from {@code firstOffset}, each of a size {@code sizes} picks and 1..maxRecords records. */
    static Entries entries(
            long streamId, long firstOffset, int count, int maxRecords, Random random, SizePicker sizes) {
        List<byte[]> payloads = new ArrayList<>();
        List<Expected> expected = new ArrayList<>();
        long at = firstOffset;
        for (int i = 0; i < count; i++) {
            byte[] b = new byte[sizes.size(i, random)];
            random.nextBytes(b);
            int records = 1 + random.nextInt(maxRecords);
            payloads.add(b);
            expected.add(new Expected(at, records, b.length, crc(b)));
            at += records;
        }
        return new Entries(streamId, firstOffset, payloads, expected);
    }

    interface SizePicker {
        int size(int index, Random random);
    }

    /** A segment written in memory: what the writer said of it, and its bytes. */
    record Written(SegmentFile file, ByteBuffer bytes) {
        long size() {
            return file.size();
        }

        long payloadBytes() {
            return file.payloadBytes();
        }

        int entries() {
            return file.entries();
        }

        long endOffset() {
            return file.endOffset();
        }

        long messages() {
            return file.messages();
        }
    }

    static Written write(SegmentFormat format, Entries entries) {
        MemoryUpload out = new MemoryUpload("memory");
        try (SegmentWriter w = format.newWriter(entries.streamId(), entries.firstOffset(), out)) {
            for (int i = 0; i < entries.payloads().size(); i++) {
                Expected e = entries.expected().get(i);
                ByteBuf p = Unpooled.wrappedBuffer(entries.payloads().get(i));
                w.append(new LogEntry(entries.streamId(), e.offset(), e.records(), 0, p));
            }
            SegmentFile file = w.finish();
            ByteBuffer bytes = out.bytes();
            if (bytes.remaining() != file.size()) {
                throw new AssertionError("segment of " + file.size() + " bytes wrote " + bytes.remaining());
            }
            return new Written(file, bytes);
        }
    }

    /** PUTs the segment under {@code key} and returns a compacted record pointing at it (at its end offset). */
    static IndexRecord store(ObjectStore objects, String key, Written written, long timestamp) {
        objects.put(key, written.bytes().duplicate()).join();
        return record(key, written, timestamp);
    }

    static IndexRecord record(String key, Written written, long timestamp) {
        SegmentFile file = written.file();
        IndexValue value = IndexValue.compacted(
                key,
                IndexValue.FILE_TYPE_PARQUET,
                file.messages(),
                file.payloadBytes(),
                file.size(),
                file.entries(),
                Map.of());
        return new IndexRecord(
                new IndexKey(file.streamId(), file.endOffset(), file.payloadBytes()), value, timestamp, 1);
    }

    static Expected row(LogEntry e) {
        try {
            return new Expected(e.offset(), e.records(), e.payload().readableBytes(), crc(e.payload()));
        } finally {
            e.payload().release();
        }
    }

    static long crc(byte[] b) {
        CRC32 crc = new CRC32();
        crc.update(b);
        return crc.getValue();
    }

    static long crc(ByteBuf b) {
        CRC32 crc = new CRC32();
        crc.update(b.nioBuffer());
        return crc.getValue();
    }
}
