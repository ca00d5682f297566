package dev.lakestream.segments;

import java.nio.ByteBuffer;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Row groups' bytes fetched ahead of readers reading on, not decoded yet: a span of consecutive row groups comes in one
 * ranged GET, and each group of it is decoded when its reader nears it. Bounded: a span is offered only while the
 * groups held, fetched or on their way, stay within {@code maxBytes}; a group is given up once taken (to be decoded)
 * and when nobody took it within {@link #STALE_NANOS} (its reader stopped or jumped), so an abandoned span does not
 * hold the budget.
 */
final class FetchedSpans {

    /** Bytes of an object from {@code position} on. */
    record Span(long position, ByteBuffer bytes) {}

    /** How long a fetched group waits to be taken before it is dropped. */
    static final long STALE_NANOS = 30_000_000_000L;

    private record Held(CompletableFuture<Span> span, long length, long sinceNanos) {}

    private final long maxBytes;
    /** By {@code group@key}, oldest first. */
    private final LinkedHashMap<String, Held> held = new LinkedHashMap<>();

    private long bytes;

    /** @param maxBytes row-group bytes held at most, fetched or being fetched (0: nothing is fetched ahead) */
    FetchedSpans(long maxBytes) {
        this.maxBytes = maxBytes;
    }

    synchronized boolean contains(String key, int group) {
        return held.containsKey(name(key, group));
    }

    /**
     * Holds groups {@code first..first + lengths.length - 1} of {@code key}, all coming with {@code span}, when they fit
     * the bound; false (nothing held) when they do not.
     */
    synchronized boolean offer(String key, int first, long[] lengths, CompletableFuture<Span> span, long nowNanos) {
        dropStale(nowNanos);
        long total = 0;
        for (long l : lengths) {
            total += l;
        }
        if (bytes + total > maxBytes) {
            return false;
        }
        for (int i = 0; i < lengths.length; i++) {
            Held old = held.put(name(key, first + i), new Held(span, lengths[i], nowNanos));
            bytes += lengths[i] - (old == null ? 0 : old.length());
        }
        return true;
    }

    /** The span holding the group, which is no longer held (the caller decodes it); null when not held. */
    synchronized CompletableFuture<Span> take(String key, int group) {
        Held h = held.remove(name(key, group));
        if (h == null) {
            return null;
        }
        bytes -= h.length();
        return h.span();
    }

    /** Gives up every group of {@code span} (its GET failed): the reads that need them fetch them themselves. */
    synchronized void forget(CompletableFuture<Span> span) {
        Iterator<Held> it = held.values().iterator();
        while (it.hasNext()) {
            Held h = it.next();
            if (h.span() == span) {
                it.remove();
                bytes -= h.length();
            }
        }
    }

    synchronized long bytes() {
        return bytes;
    }

    private void dropStale(long nowNanos) {
        Iterator<Map.Entry<String, Held>> it = held.entrySet().iterator();
        while (it.hasNext()) {
            Held h = it.next().getValue();
            if (nowNanos - h.sinceNanos() < STALE_NANOS) {
                return; // oldest first: the rest are younger
            }
            it.remove();
            bytes -= h.length();
        }
    }

    private static String name(String key, int group) {
        return group + "@" + key;
    }
}
