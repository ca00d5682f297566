package dev.lakestream.core.wal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * A pooled allocator of its own that remembers every buffer it hands out, so a test can assert that each one was
 * released (exactly once: a second release of a buffer at zero throws, and the code under test would see it).
 */
final class TrackingAllocator extends PooledByteBufAllocator {

    private final List<ByteBuf> handedOut = new ArrayList<>();

    TrackingAllocator() {
        super(true);
    }

    @Override
    protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
        ByteBuf b = super.newDirectBuffer(initialCapacity, maxCapacity);
        synchronized (handedOut) {
            handedOut.add(b);
        }
        return b;
    }

    @Override
    protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
        ByteBuf b = super.newHeapBuffer(initialCapacity, maxCapacity);
        synchronized (handedOut) {
            handedOut.add(b);
        }
        return b;
    }

    /** Buffers handed out so far. */
    int handedOut() {
        synchronized (handedOut) {
            return handedOut.size();
        }
    }

    /** Buffers handed out and not released yet. */
    List<ByteBuf> live() {
        synchronized (handedOut) {
            return handedOut.stream().filter(b -> b.refCnt() > 0).toList();
        }
    }

    /**
     * Waits (at most 10 s) until every buffer handed out is released: GETs still in flight release theirs when they
     * arrive. Reference counts notify nobody, so this polls them.
     */
    void awaitAllReleased() throws InterruptedException {
        awaitUntil(() -> live().isEmpty());
    }

    /** Waits (at most 10 s) until at least one buffer was handed out. */
    void awaitHandedOut() throws InterruptedException {
        awaitUntil(() -> handedOut() > 0);
    }

    private static void awaitUntil(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean() && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
    }
}
