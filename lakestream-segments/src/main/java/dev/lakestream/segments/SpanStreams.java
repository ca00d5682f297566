package dev.lakestream.segments;

import dev.lakestream.core.objectstore.ObjectStore;
import dev.lakestream.core.objectstore.ObjectStream;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Where spans of row groups come from: a reader reading on goes through a segment span after span, so the first span
 * opens one stream ({@link ObjectStore#openStream}) to the end of the segment's row groups and the next spans are read
 * from it, in order: one GET per segment rather than one per span. A span that is not where its segment's stream is (a
 * second reader elsewhere in the same segment, a reader that jumped) is a ranged GET of its own, as is a span that
 * ends the segment's row groups; a stream not used for {@link #IDLE_NANOS}, closed by its store, or failed is dropped
 * and the next span opens another.
 *
 * <p>One stream per segment, guarded by this object's monitor; reads of a stream are chained, so they never overlap.
 */
final class SpanStreams implements AutoCloseable {

    /** A stream not used for this long is closed here, whatever its store does. */
    static final long IDLE_NANOS = 60_000_000_000L;

    private static final class Open {
        final CompletableFuture<ObjectStream> stream;
        /** Where the read chained last ends: the next span the stream can serve starts here. */
        long next;
        /** The last read chained. */
        CompletableFuture<?> tail;

        long lastUsedNanos;
        boolean failed;

        Open(CompletableFuture<ObjectStream> stream, long start, long nowNanos) {
            this.stream = stream;
            this.next = start;
            this.tail = stream;
            this.lastUsedNanos = nowNanos;
        }

        boolean closed() {
            return failed
                    || (stream.isDone()
                            && (stream.isCompletedExceptionally()
                                    || !stream.join().isOpen()));
        }

        void close() {
            var unused = stream.thenAccept(ObjectStream::close);
        }
    }

    private final ObjectStore objects;
    private final Map<String, Open> open = new HashMap<>();

    SpanStreams(ObjectStore objects) {
        this.objects = objects;
    }

    /**
     * Bytes {@code [start, start + length)} of {@code key}, whose row groups end at {@code groupsEnd}: exactly that
     * many, or a failure.
     */
    CompletableFuture<ByteBuffer> span(String key, long start, long length, long groupsEnd) {
        long now = System.nanoTime();
        Open o;
        CompletableFuture<ByteBuffer> read;
        synchronized (this) {
            dropIdle(now);
            o = open.get(key);
            if (o != null && o.closed()) {
                open.remove(key);
                o = null;
            }
            if (o == null || o.next != start) {
                if (o != null || start + length >= groupsEnd) {
                    return objects.get(key, start, length);
                }
                o = new Open(objects.openStream(key, start, groupsEnd - start), start, now);
                open.put(key, o);
            }
            Open mine = o;
            o.next = start + length;
            o.lastUsedNanos = now;
            read = o.tail.handle((v, e) -> null) // a failed read before does not stop this one from being tried
                    .thenCompose(v -> mine.stream)
                    .thenCompose(s -> s.read((int) length));
            o.tail = read;
        }
        Open mine = o;
        return read.handle((bytes, e) -> {
            if (e == null && bytes.remaining() == length) {
                return bytes;
            }
            synchronized (this) {
                mine.failed = true;
                open.remove(key, mine);
            }
            mine.close();
            if (e != null) {
                throw e instanceof RuntimeException r ? r : new java.util.concurrent.CompletionException(e);
            }
            throw new BadSegmentException(
                    "returned " + bytes.remaining() + " bytes of a span of " + length + " from position " + start
                            + " (truncated?)",
                    null);
        });
    }

    private void dropIdle(long now) {
        for (Iterator<Open> it = open.values().iterator(); it.hasNext(); ) {
            Open o = it.next();
            if (now - o.lastUsedNanos > IDLE_NANOS || o.closed()) {
                it.remove();
                o.close();
            }
        }
    }

    /** Streams open now (tests). */
    synchronized int open() {
        return open.size();
    }

    @Override
    public synchronized void close() {
        open.values().forEach(Open::close);
        open.clear();
    }
}
