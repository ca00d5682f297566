package dev.lakestream.core.wal;

import java.nio.ByteBuffer;
import java.util.Iterator;
import java.util.LinkedHashMap;

/**
 * The indexes of the WAL objects read lately, decoded once: every read of a stream in an object needs its index, and
 * decoding it anew for each read made one small object per entry of the whole object (thousands per read), most of
 * a catch-up reader's garbage. Objects never change (each write has a new key), so a decoded index stays right.
 * Holds the {@code maxObjects} used last. Thread-safe.
 */
final class DecodedIndexes {

    private final int maxObjects;
    private final LinkedHashMap<String, WalObjectFormat.Index> indexes = new LinkedHashMap<>(16, 0.75f, true);

    DecodedIndexes(int maxObjects) {
        this.maxObjects = maxObjects;
    }

    /** The index of {@code key}, decoded from {@code header} (see {@link WalObjectFormat#decodeIndex}) if not held. */
    WalObjectFormat.Index decode(ByteBuffer header, String key, long objectSize) {
        synchronized (this) {
            WalObjectFormat.Index known = indexes.get(key);
            if (known != null) {
                return known;
            }
        }
        WalObjectFormat.Index decoded = WalObjectFormat.decodeIndex(header, key, objectSize);
        synchronized (this) {
            indexes.put(key, decoded);
            Iterator<String> eldest = indexes.keySet().iterator();
            while (indexes.size() > maxObjects && eldest.hasNext()) {
                eldest.next();
                eldest.remove();
            }
        }
        return decoded;
    }

    synchronized void clear() {
        indexes.clear();
    }
}
