package dev.lakestream.core.wal;

import dev.lakestream.core.collect.LruMap;
import java.nio.ByteBuffer;

/**
 * The indexes of the WAL objects read lately, decoded once: every read of a stream in an object needs its index, and
 * decoding it anew for each read made one small object per entry of the whole object (thousands per read), most of
 * a catch-up reader's garbage. Objects never change (each write has a new key), so a decoded index stays right.
 * Holds the {@code maxObjects} used last. Thread-safe.
 */
final class DecodedIndexes {

    private final LruMap<String, WalObjectFormat.Index> indexes;

    DecodedIndexes(int maxObjects) {
        this.indexes = new LruMap<>(maxObjects);
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
        }
        return decoded;
    }

    synchronized void clear() {
        indexes.clear();
    }
}
