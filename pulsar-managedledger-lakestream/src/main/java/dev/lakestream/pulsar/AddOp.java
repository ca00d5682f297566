package dev.lakestream.pulsar;

import io.netty.buffer.ByteBuf;
import org.apache.bookkeeper.mledger.AsyncCallbacks.AddEntryCallback;
import org.apache.bookkeeper.mledger.intercept.ManagedLedgerInterceptor;

/**
 * One add in a {@link LakestreamManagedLedger}'s {@link AppendPipeline}: the entry, its callback, and where it was
 * placed. Mutable fields are guarded by the ledger's monitor, as the pipeline's queues are.
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
