package dev.lakestream.core.wal;

import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;

/**
 * The payload bytes of one open batch, copied in as they are appended, in arrival order, in direct chunks
 * of one size taken from a {@link ChunkPool} (an entry may span chunks). Not thread-safe: the writer fills it under
 * its lock, then hands it to its flush thread.
 *
 * <p>Why copy on append rather than keep the caller's buffers until the flush: the caller's buffer is then
 * released by the thread that allocated it (a Netty event loop in a broker), where its pool recycles it at
 * once; released later by the flush thread, thousands of small pooled buffers per object went back through
 * the shared arenas, under their locks. Here one object takes a handful of reused chunks. The chunks are
 * off-heap so that bytes waiting for a flush add no work to the garbage collector.
 */
final class PayloadBuffer {

    private final ChunkPool pool;
    private final int chunkBytes;
    private final List<ByteBuf> chunks = new ArrayList<>(16);
    private long size;

    PayloadBuffer(ChunkPool pool) {
        this.pool = pool;
        this.chunkBytes = pool.chunkBytes();
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
                int inChunk = (int) (size % chunkBytes);
                if (inChunk == 0 && chunks.size() == size / chunkBytes) {
                    chunks.add(pool.take());
                }
                ByteBuf chunk = chunks.get((int) (size / chunkBytes));
                int n = Math.min(left, chunkBytes - inChunk);
                chunk.setBytes(inChunk, payload, index, n);
                size += n;
                index += n;
                left -= n;
            }
        } catch (RuntimeException e) {
            size = start;
            List<ByteBuf> added = chunks.subList(chunksBefore, chunks.size());
            added.forEach(pool::give);
            added.clear();
            throw e;
        }
        return start;
    }

    /** Bytes written so far (still known after {@link #release()}: the writer's memory accounting uses it). */
    long size() {
        return size;
    }

    /** Copies {@code length} bytes written at {@code offset} into {@code dst} from {@code dstIndex}. */
    void copy(long offset, int length, byte[] dst, int dstIndex) {
        while (length > 0) {
            int inChunk = (int) (offset % chunkBytes);
            int n = Math.min(length, chunkBytes - inChunk);
            chunks.get((int) (offset / chunkBytes)).getBytes(inChunk, dst, dstIndex, n);
            offset += n;
            dstIndex += n;
            length -= n;
        }
    }

    /** Gives the chunks back to their pool. Idempotent. */
    void release() {
        chunks.forEach(pool::give);
        chunks.clear();
    }
}
