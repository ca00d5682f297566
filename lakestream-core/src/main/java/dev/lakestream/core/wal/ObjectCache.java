package dev.lakestream.core.wal;

import io.netty.buffer.ByteBuf;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Whole objects kept in memory, least recently used first out, within a byte budget. The writer puts every object
 * it wrote so tail readers never GET them; readers put what they fetched.
 *
 * <p>Objects are reference-counted buffers (the writer's payload chunks, a reader's pooled direct buffer): the cache
 * holds one reference to each and releases it when the object is evicted, replaced, invalidated or the cache cleared;
 * {@link #get} hands the caller a reference of its own. Each object is charged what it occupies, which may be more
 * than its bytes (the writer's chunks). Buffers are shared: callers read them with absolute indexes and never change
 * them. Thread-safe.
 *
 * <p>Kept rather than Caffeine: the lookup and the caller's retain happen under one lock here, where Caffeine's
 * eviction listener runs apart from the lookup and could release a buffer between a get and its retain.
 */
public final class ObjectCache {

    private final long maxBytes;
    private final LinkedHashMap<String, Cached> objects = new LinkedHashMap<>(64, 0.75f, true);
    private long bytes;
    private long hits;
    private long misses;

    private record Cached(ByteBuf buffer, long charge) {}

    public ObjectCache(long maxBytes) {
        this.maxBytes = maxBytes;
    }

    /** The object with a reference for the caller to release, or null when it is not cached. */
    public synchronized ByteBuf get(String key) {
        Cached c = objects.get(key);
        if (c == null) {
            misses++;
            return null;
        }
        hits++;
        return c.buffer.retainedDuplicate();
    }

    /** Whether the object is cached; unlike {@link #get}, not counted as a hit or a miss (prefetch asks this). */
    public synchronized boolean contains(String key) {
        return objects.containsKey(key);
    }

    /** Caches the object, charged its readable bytes; see {@link #put(String, ByteBuf, long)}. */
    public void put(String key, ByteBuf object) {
        put(key, object, object.readableBytes());
    }

    /**
     * Caches the object, charged {@code charge} bytes of the budget, taking a reference of its own (the caller keeps
     * and releases its own). An object larger than the whole budget is not cached.
     */
    public synchronized void put(String key, ByteBuf object, long charge) {
        if (charge > maxBytes) {
            return;
        }
        Cached old = objects.put(key, new Cached(object.retainedDuplicate(), charge));
        bytes += charge;
        if (old != null) {
            bytes -= old.charge;
            old.buffer.release();
        }
        Iterator<Map.Entry<String, Cached>> it = objects.entrySet().iterator();
        while (bytes > maxBytes && it.hasNext()) {
            Cached evicted = it.next().getValue();
            it.remove();
            bytes -= evicted.charge;
            evicted.buffer.release();
        }
    }

    public synchronized void invalidate(String key) {
        Cached old = objects.remove(key);
        if (old != null) {
            bytes -= old.charge;
            old.buffer.release();
        }
    }

    /** Releases every object: the owner is closing. */
    public synchronized void clear() {
        objects.values().forEach(c -> c.buffer.release());
        objects.clear();
        bytes = 0;
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
