package dev.lakestream.core.wal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Appends gathered for one WAL object, grouped by stream in arrival order, their payloads copied into a
 * {@link PayloadBuffer}. Not thread-safe: the writer fills it under its lock until it is sealed, then its flush
 * thread builds the object from it.
 */
final class Batch {

    /** Largest direct chunk holding a batch's payloads; a batch's chunks grow to it from {@link #FIRST_CHUNK_BYTES}. */
    static final int CHUNK_BYTES = 512 << 10;
    /** The first chunk of a batch: an idle writer's one-append object keeps no more memory than this in the cache. */
    static final int FIRST_CHUNK_BYTES = 8 << 10;

    private final LinkedHashMap<Long, StreamPart> streams = new LinkedHashMap<>();
    /** Released once its object's body is built (the body keeps its own references to the chunks). */
    private final PayloadBuffer payloads;

    private final int appendsPerStream;
    /** When its first append came, for the linger. */
    private final long openedNanos;

    private int appends;
    /** The part appended to last: consecutive appends to one stream skip the map lookup. */
    private StreamPart last;
    /** Whether its early flush has been scheduled (or done). */
    private boolean earlyFlushArmed;
    /** Whether its bytes went back to the writer's budget. */
    private boolean released;

    Batch(ByteBufAllocator allocator, int appendsPerStream, long openedNanos) {
        this.payloads = new PayloadBuffer(allocator, FIRST_CHUNK_BYTES, CHUNK_BYTES);
        this.appendsPerStream = appendsPerStream;
        this.openedNanos = openedNanos;
    }

    /** Copies the payload in; if it cannot be read, throws and leaves the batch as it was. */
    void add(PendingAppend a, ByteBuf payload) {
        StreamPart part = last != null && last.streamId() == a.streamId() ? last : streams.get(a.streamId());
        boolean created = part == null;
        if (created) {
            part = new StreamPart(a.streamId(), appendsPerStream);
        }
        a.copiedTo(payloads.write(payload));
        if (created) {
            streams.put(a.streamId(), part);
        }
        part.add(a);
        last = part;
        appends++;
    }

    boolean isEmpty() {
        return streams.isEmpty();
    }

    /** Its streams' shares, in the order the streams first appended. */
    Collection<StreamPart> parts() {
        return Collections.unmodifiableCollection(streams.values());
    }

    int streamCount() {
        return streams.size();
    }

    int appendCount() {
        return appends;
    }

    /** Payload bytes copied in (still known once the chunks are released). */
    long payloadBytes() {
        return payloads.size();
    }

    /** Bytes of the chunks holding the payloads: the memory they occupy (still known once released). */
    long chunkBytes() {
        return payloads.capacity();
    }

    long openedNanos() {
        return openedNanos;
    }

    /** Marks its early flush as scheduled; false if it was already. */
    boolean armEarlyFlushOnce() {
        boolean first = !earlyFlushArmed;
        earlyFlushArmed = true;
        return first;
    }

    /** Marks its bytes as returned to the writer's budget; false if they were already. */
    boolean releaseOnce() {
        boolean first = !released;
        released = true;
        return first;
    }

    /**
     * Builds the WAL object: its index, then the payloads as slices of the chunks they were copied into on append
     * (no copy). The batch's own references to the chunks are released whatever the outcome: a built body holds
     * its own.
     */
    Built build() {
        try {
            Map<Long, List<WalObjectFormat.EntryLocation>> locations = new LinkedHashMap<>();
            long dataOffset = 0;
            for (StreamPart part : streams.values()) {
                List<WalObjectFormat.EntryLocation> entries =
                        new ArrayList<>(part.appends().size());
                for (PendingAppend a : part.appends()) {
                    entries.add(new WalObjectFormat.EntryLocation(dataOffset, a.size(), a.records()));
                    dataOffset += a.size();
                }
                locations.put(part.streamId(), entries);
            }
            ByteBuffer index = WalObjectFormat.encodeIndex(locations);
            int indexLength = index.remaining() - WalObjectFormat.LENGTH_PREFIX_BYTES;
            WalObjectBody body = new WalObjectBody(index);
            try {
                for (StreamPart part : streams.values()) {
                    for (PendingAppend a : part.appends()) {
                        body.add(payloads.chunk(a.slot()), PayloadBuffer.offsetInChunk(a.slot()), a.size());
                    }
                }
            } catch (RuntimeException e) {
                body.discard();
                throw e;
            }
            return new Built(body.build(), indexLength);
        } finally {
            payloads.release();
        }
    }

    /** A built WAL object and the length of its index (without the length prefix). */
    record Built(WalObjectBody.Built object, int indexLength) {}
}
