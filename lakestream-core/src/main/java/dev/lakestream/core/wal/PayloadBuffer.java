package dev.lakestream.core.wal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.ArrayList;
import java.util.List;

/**
 * The payload bytes of one open batch, copied in as they are appended, in arrival order, in pooled direct
 * chunks of {@link #CHUNK_BYTES} each (an entry may span chunks). Not thread-safe: the writer fills it under
 * its lock, then hands it to its flush thread.
 *
 * <p>Why copy on append rather than keep the caller's buffers until the flush: the caller's buffer is then
 * released by the thread that allocated it (a Netty event loop in a broker), where its pool recycles it at
 * once; released later by the flush thread, thousands of small pooled buffers per object went back through
 * the shared arenas, under their locks. Here one object costs a handful of chunk allocations. The chunks are
 * off-heap so that bytes waiting for a flush add no work to the garbage collector, and of one size, large
 * enough to stay clear of the pool's small-buffer pages that callers' payloads use.
 */
final class PayloadBuffer {

    static final int CHUNK_BYTES = 512 << 10;

    private final ByteBufAllocator allocator;
    private final List<ByteBuf> chunks = new ArrayList<>(16);
    private long size;

    PayloadBuffer(ByteBufAllocator allocator) {
        this.allocator = allocator;
    }

    /**
     * Copies the readable bytes of {@code payload}, leaving its indexes as they were, and returns where they
     * start in this buffer. If reading the payload fails (it was released, say), nothing of it is kept and
     * the exception is thrown.
     */
    long write(ByteBuf payload) {
        long start = size;
        int index = payload.readerIndex();
        int left = payload.readableBytes();
        int chunksBefore = chunks.size();
        try {
            while (left > 0) {
                int inChunk = (int) (size % CHUNK_BYTES);
                if (inChunk == 0 && chunks.size() == size / CHUNK_BYTES) {
                    chunks.add(allocator.directBuffer(CHUNK_BYTES, CHUNK_BYTES));
                }
                ByteBuf chunk = chunks.get((int) (size / CHUNK_BYTES));
                int n = Math.min(left, CHUNK_BYTES - inChunk);
                chunk.setBytes(inChunk, payload, index, n);
                size += n;
                index += n;
                left -= n;
            }
        } catch (RuntimeException e) {
            size = start;
            List<ByteBuf> added = chunks.subList(chunksBefore, chunks.size());
            added.forEach(ByteBuf::release);
            added.clear();
            throw e;
        }
        return start;
    }

    /** Bytes written so far. */
    long size() {
        return size;
    }

    /** Copies {@code length} bytes written at {@code offset} into {@code dst} from {@code dstIndex}. */
    void copy(long offset, int length, byte[] dst, int dstIndex) {
        while (length > 0) {
            int inChunk = (int) (offset % CHUNK_BYTES);
            int n = Math.min(length, CHUNK_BYTES - inChunk);
            chunks.get((int) (offset / CHUNK_BYTES)).getBytes(inChunk, dst, dstIndex, n);
            offset += n;
            dstIndex += n;
            length -= n;
        }
    }

    /** Returns the chunks to their pool. Idempotent. */
    void release() {
        chunks.forEach(ByteBuf::release);
        chunks.clear();
    }
}
