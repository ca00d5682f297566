package dev.lakestream.core.wal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.ArrayDeque;

/**
 * Direct buffers of one size that the writer's batches take and give back, keeping up to {@code maxIdle} of
 * them for the next batch.
 *
 * <p>Why not take each from Netty's pool and release it: these buffers are too large for Netty's per-thread
 * caches, so each went through a shared arena, and because one thread (an appender) takes them and another
 * (the flush thread) gives them back, the arena kept emptying a 4 MiB chunk, freeing it, and allocating and
 * zeroing a new one. A batch's buffers are back before its object is stored, so a couple of objects' worth
 * covers the steady state.
 */
final class ChunkPool implements AutoCloseable {

    private final ByteBufAllocator allocator;
    private final int chunkBytes;
    private final int maxIdle;
    private final ArrayDeque<ByteBuf> idle = new ArrayDeque<>();
    private boolean closed;

    ChunkPool(ByteBufAllocator allocator, int chunkBytes, int maxIdle) {
        this.allocator = allocator;
        this.chunkBytes = chunkBytes;
        this.maxIdle = maxIdle;
    }

    int chunkBytes() {
        return chunkBytes;
    }

    /** An empty buffer of {@link #chunkBytes()} bytes, writer index 0. */
    ByteBuf take() {
        ByteBuf b;
        synchronized (this) {
            b = idle.poll();
        }
        return b != null ? b.clear() : allocator.directBuffer(chunkBytes, chunkBytes);
    }

    /** Takes a buffer back; keeps it for reuse, or releases it when enough are idle or the pool is closed. */
    void give(ByteBuf b) {
        synchronized (this) {
            if (!closed && idle.size() < maxIdle) {
                idle.push(b);
                return;
            }
        }
        b.release();
    }

    /** Buffers kept for reuse now. */
    synchronized int idle() {
        return idle.size();
    }

    /** Releases the idle buffers; buffers given back later are released at once. */
    @Override
    public void close() {
        synchronized (this) {
            closed = true;
        }
        ByteBuf b;
        while (true) {
            synchronized (this) {
                b = idle.poll();
            }
            if (b == null) {
                return;
            }
            b.release();
        }
    }
}
