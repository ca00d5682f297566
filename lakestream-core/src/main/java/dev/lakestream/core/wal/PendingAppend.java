package dev.lakestream.core.wal;

import dev.lakestream.core.log.AppendResult;
import io.netty.buffer.ByteBuf;
import java.util.concurrent.CompletableFuture;

/** One append, from its admission by the writer until its result is known. */
final class PendingAppend {

    private final long streamId;
    private final int records;
    private final int size;
    private final CompletableFuture<AppendResult> result = new CompletableFuture<>();
    /** Held (retained) only while the append waits for room; null once copied or failed. */
    private ByteBuf held;
    /** Where its bytes are in its batch's {@link PayloadBuffer}, once copied in. */
    private long slot;
    /** Its place in the writer's admission order (see {@link IndexCommitter#failAppends}). */
    private long seq;

    PendingAppend(long streamId, int records, int size) {
        this.streamId = streamId;
        this.records = records;
        this.size = size;
    }

    long streamId() {
        return streamId;
    }

    int records() {
        return records;
    }

    int size() {
        return size;
    }

    CompletableFuture<AppendResult> result() {
        return result;
    }

    long seq() {
        return seq;
    }

    void admittedAs(long seq) {
        this.seq = seq;
    }

    long slot() {
        return slot;
    }

    void copiedTo(long slot) {
        this.slot = slot;
    }

    /** Retains the caller's payload while the append waits for room; throws if it can no longer be retained. */
    void hold(ByteBuf payload) {
        held = payload.retain();
    }

    /** The payload held while waiting (null if none). */
    ByteBuf held() {
        return held;
    }

    void fail(Throwable e) {
        releasePayload();
        result.completeExceptionally(e);
    }

    void releasePayload() {
        ByteBuf payload = held;
        held = null;
        if (payload != null) {
            payload.release();
        }
    }
}
