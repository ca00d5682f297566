package dev.lakestream.core.wal;

import dev.lakestream.core.objectstore.ObjectBody;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * Builds the bytes of one WAL object without copying its payloads: a composite buffer of the index (a small
 * heap buffer) followed by retained slices of the batch's payload chunks, in object order, and the CRC32C of the
 * whole computed part by part as they are added. A stream's appends that follow each other in a chunk become one
 * slice. The composite owns its slices: releasing it (once the object is stored and, if cached, evicted) gives the
 * chunks back to their allocator.
 */
final class WalObjectBody {

    private final CompositeByteBuf body = Unpooled.compositeBuffer(Integer.MAX_VALUE);
    private final CRC32C crc = new CRC32C();
    private ByteBuf run;
    private int runStart;
    private int runEnd;

    WalObjectBody(ByteBuffer index) {
        crc.update(index.duplicate());
        body.addComponent(true, Unpooled.wrappedBuffer(index));
    }

    /** Adds {@code length} bytes of {@code chunk} from {@code offset}, after those added so far. */
    @SuppressWarnings("ReferenceEquality") // the same chunk object, not equal bytes, makes a run contiguous
    void add(ByteBuf chunk, int offset, int length) {
        if (run == chunk && runEnd == offset) {
            runEnd += length;
            return;
        }
        flushRun();
        run = chunk;
        runStart = offset;
        runEnd = offset + length;
    }

    private void flushRun() {
        if (run != null && runEnd > runStart) {
            crc.update(run.nioBuffer(runStart, runEnd - runStart));
            body.addComponent(true, run.retainedSlice(runStart, runEnd - runStart));
        }
        run = null;
    }

    /**
     * The object's bytes (one reference, the caller's) and, over the same memory, the body to hand the object
     * store. On failure releases what it took.
     */
    Built build() {
        try {
            flushRun();
            ObjectBody parts = new ObjectBody(body.nioBuffers(), body.readableBytes(), (int) crc.getValue());
            return new Built(body, parts);
        } catch (RuntimeException e) {
            body.release();
            throw e;
        }
    }

    /** Releases what was added so far: for a body that is not built after all. */
    void discard() {
        run = null;
        body.release();
    }

    /** A built object: {@code bytes} holds one reference; {@code store} is a view for the object store's put. */
    record Built(ByteBuf bytes, ObjectBody store) {}
}
