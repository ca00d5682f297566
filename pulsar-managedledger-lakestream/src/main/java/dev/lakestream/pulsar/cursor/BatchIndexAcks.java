package dev.lakestream.pulsar.cursor;

import dev.lakestream.core.cursor.DurableCursor;
import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/**
 * The ack sets of the batches a cursor has acknowledged only in part (Pulsar's batch-index acks), by offset. The core
 * cursor knows whole entries only, so each set is kept in its properties under {@value #PREFIX}{@code <offset>} (the
 * set's longs, base64). An ack set has a bit set for each index still unacknowledged; an offset with a set here is not
 * acknowledged, whatever the core's ack ranges say.
 *
 * <p>Not thread-safe: guarded by the owning cursor's monitor, which every instance method expects held (the cursor
 * rewrites the sets and the core cursor's properties in one critical section).
 */
final class BatchIndexAcks {

    static final String PREFIX = "lakestream.batchAck.";

    private final Object guard;
    private final DurableCursor dc;
    private final TreeMap<Long, long[]> sets = new TreeMap<>();

    /** Loads the sets recorded in {@code dc}'s properties; {@code guard} is the owning cursor. */
    BatchIndexAcks(Object guard, DurableCursor dc) {
        this.guard = guard;
        this.dc = dc;
        for (Map.Entry<String, String> e : dc.properties().entrySet()) {
            if (e.getKey().startsWith(PREFIX)) {
                try {
                    sets.put(Long.parseLong(e.getKey().substring(PREFIX.length())), decodeLongs(e.getValue()));
                } catch (RuntimeException ignored) {
                    // a malformed batch record is dropped: the entry is then redelivered whole
                }
            }
        }
    }

    /** Whether the entry at {@code off} is a batch acknowledged in part. */
    boolean isPartlyAcked(long off) {
        assert Thread.holdsLock(guard);
        return sets.containsKey(off);
    }

    /** A copy of the entry's ack set, or null when it has none. */
    long[] ackSet(long off) {
        assert Thread.holdsLock(guard);
        long[] s = sets.get(off);
        return s == null ? null : s.clone();
    }

    /** The entry's ack set after also acknowledging the indexes {@code ackSet} clears (not stored). */
    long[] intersect(long off, long[] ackSet) {
        assert Thread.holdsLock(guard);
        long[] prev = sets.get(off);
        return prev == null ? ackSet.clone() : and(prev, ackSet);
    }

    void put(long off, long[] ackSet) {
        assert Thread.holdsLock(guard);
        sets.put(off, ackSet);
    }

    /** Forgets the entry's set; true when it had one. */
    boolean remove(long off) {
        assert Thread.holdsLock(guard);
        return sets.remove(off) != null;
    }

    /** Forgets the sets below {@code ackedBefore} (mark-deleted whole); true when there were any. */
    boolean dropBelow(long ackedBefore) {
        assert Thread.holdsLock(guard);
        if (sets.isEmpty() || sets.firstKey() >= ackedBefore) {
            return false;
        }
        sets.headMap(ackedBefore).clear();
        return true;
    }

    /** Forgets every set; true when there were any. */
    boolean clear() {
        assert Thread.holdsLock(guard);
        if (sets.isEmpty()) {
            return false;
        }
        sets.clear();
        return true;
    }

    /** Rewrites the core cursor's properties: its user properties as they are, and these sets. */
    CompletableFuture<Void> persist() {
        assert Thread.holdsLock(guard);
        Map<String, String> p = new HashMap<>(userProperties(dc.properties()));
        sets.forEach((off, set) -> p.put(PREFIX + off, encodeLongs(set)));
        return dc.setProperties(p);
    }

    /** The properties without the batch ack records: what Pulsar sees as the cursor properties. */
    static Map<String, String> userProperties(Map<String, String> props) {
        Map<String, String> out = new LinkedHashMap<>();
        props.forEach((k, v) -> {
            if (!k.startsWith(PREFIX)) {
                out.put(k, v);
            }
        });
        return out;
    }

    /** The batch ack records alone, to keep when Pulsar replaces the cursor properties. */
    static Map<String, String> records(Map<String, String> props) {
        Map<String, String> out = new HashMap<>();
        props.forEach((k, v) -> {
            if (k.startsWith(PREFIX)) {
                out.put(k, v);
            }
        });
        return out;
    }

    /** True when no index is left unacknowledged: the whole entry is acknowledged. */
    static boolean allAcked(long[] ackSet) {
        for (long l : ackSet) {
            if (l != 0) {
                return false;
            }
        }
        return true;
    }

    private static long[] and(long[] a, long[] b) {
        long[] out = new long[Math.max(a.length, b.length)];
        for (int i = 0; i < out.length; i++) {
            out[i] = (i < a.length ? a[i] : 0) & (i < b.length ? b[i] : 0);
        }
        return out;
    }

    private static String encodeLongs(long[] set) {
        ByteBuffer b = ByteBuffer.allocate(set.length * 8);
        for (long l : set) {
            b.putLong(l);
        }
        return Base64.getEncoder().encodeToString(b.array());
    }

    private static long[] decodeLongs(String s) {
        ByteBuffer b = ByteBuffer.wrap(Base64.getDecoder().decode(s));
        long[] out = new long[b.remaining() / 8];
        for (int i = 0; i < out.length; i++) {
            out[i] = b.getLong();
        }
        return out;
    }
}
