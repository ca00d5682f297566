package dev.lakestream.core.wal;

import java.nio.ByteBuffer;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Whole objects kept in memory, least recently used first out, within a byte budget. The writer puts
 * every object it wrote so tail readers never GET them; readers put what they fetched. Buffers are
 * shared read-only; callers must not change them.
 */
public final class ObjectCache {

    private final long maxBytes;
    private final LinkedHashMap<String, ByteBuffer> objects = new LinkedHashMap<>(64, 0.75f, true);
    private long bytes;
    private long hits;
    private long misses;

    public ObjectCache(long maxBytes) {
        this.maxBytes = maxBytes;
    }

    public synchronized ByteBuffer get(String key) {
        ByteBuffer b = objects.get(key);
        if (b == null) {
            misses++;
            return null;
        }
        hits++;
        return b.duplicate();
    }

    /** Whether the object is cached; unlike {@link #get}, not counted as a hit or a miss (prefetch asks this). */
    public synchronized boolean contains(String key) {
        return objects.containsKey(key);
    }

    public synchronized void put(String key, ByteBuffer object) {
        long size = object.remaining();
        if (size > maxBytes) {
            return;
        }
        ByteBuffer old = objects.put(key, object.asReadOnlyBuffer());
        bytes += size - (old == null ? 0 : old.remaining());
        Iterator<Map.Entry<String, ByteBuffer>> it = objects.entrySet().iterator();
        while (bytes > maxBytes && it.hasNext()) {
            bytes -= it.next().getValue().remaining();
            it.remove();
        }
    }

    public synchronized void invalidate(String key) {
        ByteBuffer old = objects.remove(key);
        if (old != null) {
            bytes -= old.remaining();
        }
    }

    public synchronized long bytes() {
        return bytes;
    }

    public synchronized long hits() {
        return hits;
    }

    public synchronized long misses() {
        return misses;
    }
}
