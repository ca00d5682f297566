package dev.lakestream.core.segment;

import dev.lakestream.core.concurrent.Futures;
import dev.lakestream.core.index.IndexRecord;
import dev.lakestream.core.log.EntryUnreadableException;
import dev.lakestream.core.log.LogEntry;
import dev.lakestream.core.objectstore.ObjectNotFoundException;
import dev.lakestream.core.objectstore.ObjectStore;
import dev.lakestream.core.objectstore.ObjectUpload;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.zip.CRC32C;

/**
 * A segment format for the core's tests, registered under file type {@value #FILE_TYPE} (so it never claims PARQUET):
 * a header (magic, stream, first and end offset, entries), the entries one after another (offset, records, length,
 * bytes), and a CRC32C of all that. The reader fetches the object whole.
 */
public final class EntryListSegmentFormat implements SegmentFormat {

    public static final int FILE_TYPE = 101;
    private static final int MAGIC = 0x4C53_5347;

    @Override
    public int fileType() {
        return FILE_TYPE;
    }

    @Override
    public String name() {
        return "entries";
    }

    @Override
    public SegmentReader openReader(ObjectStore objects, ByteBufAllocator allocator) {
        return new Reader(objects, allocator);
    }

    @Override
    public SegmentWriter newWriter(long streamId, long firstOffset, ObjectUpload out) {
        return new Writer(streamId, firstOffset, out);
    }

    private static final class Writer implements SegmentWriter {
        private final long streamId;
        private final long firstOffset;
        private final ObjectUpload out;
        private final ByteArrayOutputStream body = new ByteArrayOutputStream();
        private long next;
        private int entries;
        private long payloadBytes;
        private boolean finished;

        Writer(long streamId, long firstOffset, ObjectUpload out) {
            this.out = out;
            this.streamId = streamId;
            this.firstOffset = firstOffset;
            this.next = firstOffset;
        }

        @Override
        public void append(LogEntry entry) {
            if (finished || entry.streamId() != streamId || entry.offset() != next) {
                throw new IllegalArgumentException("entry " + entry.offset() + " of stream " + entry.streamId()
                        + " does not follow " + next + " of stream " + streamId);
            }
            ByteBuf p = entry.payload();
            byte[] bytes = new byte[p.readableBytes()];
            p.getBytes(p.readerIndex(), bytes);
            ByteBuffer head = ByteBuffer.allocate(16)
                    .putLong(entry.offset())
                    .putInt(entry.records())
                    .putInt(bytes.length);
            body.writeBytes(head.array());
            body.writeBytes(bytes);
            next = entry.endOffset();
            entries++;
            payloadBytes += bytes.length;
        }

        @Override
        public long payloadBytes() {
            return payloadBytes;
        }

        @Override
        public SegmentFile finish() {
            finished = true;
            byte[] b = body.toByteArray();
            ByteBuffer bytes = ByteBuffer.allocate(32 + b.length + 4);
            bytes.putInt(MAGIC)
                    .putLong(streamId)
                    .putLong(firstOffset)
                    .putLong(next)
                    .putInt(entries)
                    .put(b);
            CRC32C crc = new CRC32C();
            crc.update(bytes.array(), 0, bytes.position());
            bytes.putInt((int) crc.getValue()).flip();
            long size = bytes.remaining();
            out.write(bytes); // whole, at the end: a test format, of small segments
            return new SegmentFile(streamId, firstOffset, next, entries, payloadBytes, out.key(), size);
        }

        @Override
        public void close() {}
    }

    private record Reader(ObjectStore objects, ByteBufAllocator allocator) implements SegmentReader {

        @Override
        public CompletableFuture<List<LogEntry>> read(
                IndexRecord record, long fromOffset, int maxEntries, long maxBytes) {
            String key = record.value().location();
            long at = Math.max(fromOffset, record.startOffset());
            return objects.get(key, allocator).handle((b, e) -> {
                if (e != null) {
                    Throwable c = Futures.unwrap(e);
                    throw new EntryUnreadableException(
                            record.streamId(),
                            at,
                            key,
                            c instanceof ObjectNotFoundException ? "is missing from the object store" : c.toString(),
                            c);
                }
                try {
                    return slice(record, b, fromOffset, maxEntries, maxBytes, at);
                } finally {
                    b.release();
                }
            });
        }

        private static List<LogEntry> slice(
                IndexRecord record, ByteBuf b, long from, int maxEntries, long maxBytes, long at) {
            String key = record.value().location();
            int n = b.readableBytes();
            CRC32C crc = new CRC32C();
            crc.update(b.nioBuffer(b.readerIndex(), Math.max(0, n - 4)));
            if (n < 36 || b.getInt(b.readerIndex() + n - 4) != (int) crc.getValue()) {
                throw new EntryUnreadableException(record.streamId(), at, key, "is corrupt (checksum mismatch)", null);
            }
            int p = b.readerIndex();
            if (b.getInt(p) != MAGIC
                    || b.getLong(p + 4) != record.streamId()
                    || b.getLong(p + 12) != record.startOffset()
                    || b.getLong(p + 20) != record.endOffset()
                    || b.getInt(p + 28) != record.value().entryCount()) {
                throw new EntryUnreadableException(
                        record.streamId(), at, key, "disagrees with its compacted index record", null);
            }
            p += 32;
            List<LogEntry> out = new ArrayList<>();
            long bytes = 0;
            int end = b.readerIndex() + n - 4;
            while (p < end && out.size() < maxEntries) {
                long offset = b.getLong(p);
                int records = b.getInt(p + 8);
                int length = b.getInt(p + 12);
                if (offset + records > from) {
                    if (!out.isEmpty() && bytes + length > maxBytes) {
                        break;
                    }
                    out.add(new LogEntry(
                            record.streamId(), offset, records, record.timestamp(), b.retainedSlice(p + 16, length)));
                    bytes += length;
                }
                p += 16 + length;
            }
            return out;
        }

        @Override
        public void close() {}
    }
}
