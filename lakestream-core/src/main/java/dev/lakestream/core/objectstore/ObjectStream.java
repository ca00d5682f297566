package dev.lakestream.core.objectstore;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * A range of an object read front to back in pieces the reader asks for, over one request where the store can
 * ({@link ObjectStore#openStream}): a reader that goes through a large object in steps pays one GET instead of one
 * per step, and holds only the step it asked for. Reads are sequential: one at a time, each from where the last ended.
 *
 * <p>A stream nobody reads from for a while may be closed by its store (an open request holds a connection);
 * {@link #isOpen()} says so, and the reader opens another at {@link #position()}.
 */
public interface ObjectStream extends AutoCloseable {

    /**
     * The next {@code length} bytes of the range, or fewer at its end (none once at the end), in a buffer the caller
     * owns. Fails with {@link IllegalStateException} while another read is pending, and with an
     * {@link ObjectStoreException} naming the object and position when the store fails or the stream was closed.
     */
    CompletableFuture<ByteBuffer> read(int length);

    /** The object position the next read starts at. */
    long position();

    /** The object position the range ends at (exclusive). */
    long end();

    /** False once closed, by {@link #close()}, by the store (idle, or after a failure), or at the range's end. */
    boolean isOpen();

    /** True when each read is a request of its own (a store that does not stream), for counting requests. */
    default boolean requestPerRead() {
        return false;
    }

    /** Ends the request; a pending read fails. */
    @Override
    void close();
}
