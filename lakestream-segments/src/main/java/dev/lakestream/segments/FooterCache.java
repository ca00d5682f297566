package dev.lakestream.segments;

import dev.lakestream.core.collect.LruMap;
import java.util.Map;

/**
 * Decoded footers by object key, the least recently used dropped beyond a count. Segments are immutable, so an entry
 * never goes stale; the file size is kept to tell an object that was replaced under the same key (tests only).
 */
final class FooterCache {

    private final Map<String, SegmentFooter> footers;

    FooterCache(int capacity) {
        this.footers = new LruMap<>(capacity);
    }

    /** The footer of {@code key} if cached for an object of {@code fileSize} bytes, else null. */
    synchronized SegmentFooter get(String key, long fileSize) {
        SegmentFooter f = footers.get(key);
        return f != null && f.fileSize == fileSize ? f : null;
    }

    synchronized void put(String key, SegmentFooter footer) {
        footers.put(key, footer);
    }

    synchronized int size() {
        return footers.size();
    }

    synchronized void clear() {
        footers.clear();
    }
}
