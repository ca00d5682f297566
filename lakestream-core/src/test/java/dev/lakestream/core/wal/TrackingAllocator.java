package dev.lakestream.core.wal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

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
     * arrive. Reference counts notify nobody, so this polls them; fails listing the buffers still live.
     */
    void awaitAllReleased() {
        await("every buffer handed out to be released")
                .atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(5))
                .untilAsserted(
                        () -> assertThat(live()).as("buffers not released").isEmpty());
    }

    /** Waits (at most 10 s) until at least one buffer was handed out. */
    void awaitHandedOut() {
        await("a buffer to be handed out")
                .atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(5))
                .until(() -> handedOut() > 0);
    }
}
