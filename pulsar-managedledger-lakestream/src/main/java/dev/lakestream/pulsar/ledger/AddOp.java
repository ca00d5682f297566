package dev.lakestream.pulsar.ledger;

import io.netty.buffer.ByteBuf;
import java.util.concurrent.Executor;
import java.util.function.Supplier;
import org.apache.bookkeeper.mledger.AsyncCallbacks.AddEntryCallback;
import org.apache.bookkeeper.mledger.ManagedLedgerException;
import org.apache.bookkeeper.mledger.Position;
import org.apache.bookkeeper.mledger.intercept.ManagedLedgerInterceptor;

/**
 * One add in a managed ledger's {@link AppendPipeline}: the entry, its callback, where it was
 * placed, and its completion. Mutable fields are guarded by the ledger's state monitor, as the pipeline's queues are.
 */
final class AddOp implements ManagedLedgerInterceptor.AddEntryOperation {
    ByteBuf data;
    final int numberOfMessages;
    final AddEntryCallback cb;
    final Object ctx;
    long offset = -1;
    long ledgerId;
    long entryId;
    int size;
    boolean done;
    boolean finished;
    boolean holdUntilRolled;
    Throwable error;
    /** The interceptor's processed payload (what was stored instead of {@link #data}), released when done. */
    ManagedLedgerInterceptor.PayloadProcessorHandle payload;

    void releasePayload() {
        ManagedLedgerInterceptor.PayloadProcessorHandle p = payload;
        payload = null;
        if (p != null) {
            p.release();
        }
    }

    /** Runs the callback's {@code addComplete} on {@code executor}, then releases the buffers. */
    void completeOn(Executor executor, Position position) {
        executor.execute(() -> {
            try {
                cb.addComplete(position, data, ctx);
            } finally {
                releasePayload();
                data.release();
            }
        });
    }

    /** Runs the callback's {@code addFailed} on {@code executor} with what {@code error} gives there, then releases. */
    void failOn(Executor executor, Supplier<ManagedLedgerException> error) {
        executor.execute(() -> {
            try {
                cb.addFailed(error.get(), ctx);
            } finally {
                releasePayload();
                data.release();
            }
        });
    }

    AddOp(ByteBuf data, int numberOfMessages, AddEntryCallback cb, Object ctx) {
        this.data = data;
        this.numberOfMessages = numberOfMessages;
        this.cb = cb;
        this.ctx = ctx;
    }

    @Override
    public ByteBuf getData() {
        return data;
    }

    @Override
    public void setData(ByteBuf data) {
        this.data = data;
    }

    @Override
    public Object getCtx() {
        return ctx;
    }
}
