package dev.lakestream.pulsar.schema;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The schema bytes of recently read or written data records, by record key, least recently used evicted past a byte
 * budget. Data records are immutable and their keys are never reused (each carries a random nonce), so an entry can
 * never be stale; heads are not cached, since other brokers change them.
 */
final class SchemaDataCache {

    private final long maxBytes;
    private long bytes;
    private final LinkedHashMap<String, byte[]> map = new LinkedHashMap<>(16, 0.75f, true);

    SchemaDataCache(long maxBytes) {
        this.maxBytes = maxBytes;
    }

    synchronized byte[] get(String key) {
        return map.get(key);
    }

    synchronized void put(String key, byte[] data) {
        if (data.length > maxBytes) {
            return;
        }
        byte[] old = map.put(key, data);
        bytes += data.length - (old == null ? 0 : old.length);
        var it = map.entrySet().iterator();
        while (bytes > maxBytes && it.hasNext()) {
            Map.Entry<String, byte[]> e = it.next();
            bytes -= e.getValue().length;
            it.remove();
        }
    }

    synchronized void remove(String key) {
        byte[] old = map.remove(key);
        if (old != null) {
            bytes -= old.length;
        }
    }
}
