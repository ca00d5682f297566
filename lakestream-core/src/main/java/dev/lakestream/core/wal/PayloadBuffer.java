package dev.lakestream.core.wal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.ArrayList;
import java.util.List;

/**
 * The payload bytes of one open batch, copied in as they are appended, in arrival order, into direct chunks of
 * the writer's allocator. Each append lands whole in one chunk (a new chunk is started when the current one lacks
 * room), so the object is later built from one slice per append, or one per run of a stream's appends that follow
 * each other in a chunk, without copying the bytes again (see {@link WalObjectBody}). Chunks grow from
 * {@code firstChunkBytes} by doubling to {@code maxChunkBytes}, so a small batch holds little memory. Not
 * thread-safe: the writer fills it under its lock, then hands it to its flush thread.
 *
 * <p>Why copy on append rather than keep the caller's buffers: the caller's buffer is then released by the thread
 * that allocated it (a Netty event loop in a broker), where its pool recycles it at once; kept until the object is
 * stored and cached, thousands of small pooled buffers per object went back through the shared arenas, under their
 * locks, and a broker's buffers (slices of its socket reads) would pin memory far larger than the entries. The
 * chunks are off-heap so that bytes waiting for a flush add no work to the garbage collector.
 *
 * <p>Ownership: the buffer holds one reference to each chunk until {@link #release()}; an object body built from it
 * holds its own (retained slices), so the chunks live as long as the longest of the two.
 */
final class PayloadBuffer {

    private final ByteBufAllocator allocator;
    private final int firstChunkBytes;
    private final int maxChunkBytes;
    private final List<ByteBuf> chunks = new ArrayList<>(8);
    private ByteBuf current;
    private long size;
    private long capacity;

    PayloadBuffer(ByteBufAllocator allocator, int firstChunkBytes, int maxChunkBytes) {
        this.allocator = allocator;
        this.firstChunkBytes = firstChunkBytes;
        this.maxChunkBytes = maxChunkBytes;
    }

    /**
     * Copies the readable bytes of {@code payload}, leaving its indexes as they were, and returns where they are:
     * a slot for {@link #chunk} and {@link #offsetInChunk}. If reading the payload fails (it was released, say),
     * nothing of it is kept and the exception is thrown.
     */
    long write(ByteBuf payload) {
        int length = payload.readableBytes();
        ByteBuf chunk = current;
        boolean added = false;
        if (chunk == null || chunk.writableBytes() < length) {
            int want = (int) Math.min(maxChunkBytes, Math.max(firstChunkBytes, capacity));
            int bytes = Math.max(length, want);
            chunk = allocator.directBuffer(bytes, bytes);
            chunks.add(chunk);
            added = true;
        }
        int at = chunk.writerIndex();
        try {
            chunk.writeBytes(payload, payload.readerIndex(), length);
        } catch (RuntimeException e) {
            chunk.writerIndex(at);
            if (added) {
                chunks.remove(chunks.size() - 1);
                chunk.release();
            }
            throw e;
        }
        if (added) {
            current = chunk;
            capacity += chunk.capacity();
        }
        size += length;
        return ((long) (chunks.size() - 1) << 32) | at;
    }

    /** The chunk of a slot {@link #write} returned (not retained). */
    ByteBuf chunk(long slot) {
        return chunks.get((int) (slot >>> 32));
    }

    /** Where in its chunk the bytes of a slot {@link #write} returned start. */
    static int offsetInChunk(long slot) {
        return (int) slot;
    }

    /** Bytes written so far (still known after {@link #release()}: the writer's memory accounting uses it). */
    long size() {
        return size;
    }

    /** Bytes of the chunks taken so far: the memory this batch's bytes occupy (still known after release). */
    long capacity() {
        return capacity;
    }

    /** Releases this buffer's reference to its chunks. Idempotent. */
    void release() {
        chunks.forEach(ByteBuf::release);
        chunks.clear();
        current = null;
    }
}
