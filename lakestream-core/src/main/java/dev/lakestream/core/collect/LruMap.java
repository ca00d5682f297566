package dev.lakestream.core.collect;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A map holding at most {@code maxEntries}, the least recently used (read or written) dropped first, at once and
 * exactly, on the put that goes over. Not thread-safe: each user guards it with the lock of its own state.
 *
 * <p>Kept rather than Caffeine: the core carries no cache library (its jar sits in Pulsar's {@code lib/} beside
 * Pulsar's own versions), and its users touch these maps under their own lock, where Caffeine's asynchronous,
 * approximate eviction buys nothing.
 */
public final class LruMap<K, V> extends LinkedHashMap<K, V> {

    private static final long serialVersionUID = 1L;

    private final int maxEntries;

    public LruMap(int maxEntries) {
        super(16, 0.75f, true);
        if (maxEntries < 1) {
            throw new IllegalArgumentException("maxEntries must be >= 1, got " + maxEntries);
        }
        this.maxEntries = maxEntries;
    }

    @Override
    protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
        return size() > maxEntries;
    }
}
