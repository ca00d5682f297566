package dev.lakestream.segments;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The row groups decoded lately, least recently used first out, within a bound on their payload bytes. A consumer
 * catching up reads a few hundred kilobytes at a time out of row groups of megabytes: without these, each of its reads
 * would fetch and decode the whole group again.
 */
final class DecodedGroups {

    private final long maxBytes;
    private final LinkedHashMap<String, DecodedGroup> groups = new LinkedHashMap<>(16, 0.75f, true);
    private long bytes;
    private boolean closed;

    /** @param maxBytes the payload bytes kept at most (0: nothing is kept) */
    DecodedGroups(long maxBytes) {
        this.maxBytes = maxBytes;
    }

    /** The group, retained for the caller (who releases it), or null. */
    synchronized DecodedGroup get(String key, int group) {
        DecodedGroup g = groups.get(name(key, group));
        return g == null ? null : g.retain();
    }

    synchronized boolean contains(String key, int group) {
        return groups.containsKey(name(key, group));
    }

    /** Keeps a reference of the group (unless it alone is over the bound), evicting the least recently used. */
    synchronized void put(DecodedGroup g) {
        if (closed || g.bytes() > maxBytes) {
            return;
        }
        DecodedGroup old = groups.put(name(g.key, g.group), g.retain());
        if (old != null) {
            bytes -= old.bytes();
            old.release();
        }
        bytes += g.bytes();
        Iterator<Map.Entry<String, DecodedGroup>> it = groups.entrySet().iterator();
        while (bytes > maxBytes && it.hasNext()) {
            DecodedGroup evicted = it.next().getValue();
            it.remove();
            bytes -= evicted.bytes();
            evicted.release();
        }
    }

    /** Releases what is kept; nothing is kept from now on (a fetch ahead may still complete after the close). */
    synchronized void close() {
        closed = true;
        groups.values().forEach(DecodedGroup::release);
        groups.clear();
        bytes = 0;
    }

    private static String name(String key, int group) {
        return group + "@" + key;
    }
}
