package dev.lakestream.core.bench;

import dev.lakestream.core.metadata.MetadataStore;
import dev.lakestream.core.metadata.PutOptions;
import dev.lakestream.core.objectstore.ObjectStore;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counting decorators for the two stores: every asynchronous call (a method returning a
 * {@link CompletableFuture}) is counted and timed from call to completion, per operation; object puts and
 * gets also count their bytes and the puts their sizes, and each operation keeps how many calls were in
 * flight (the maximum, and the time-weighted mean). Calls that return no future pass straight through.
 *
 * <p>Built as {@link Proxy dynamic proxies} so that a method added to either interface is forwarded (and,
 * if asynchronous, counted) without touching this class. Each external call is seen once: a default method
 * called on the proxy is forwarded to the target's, whose inner calls do not go through the proxy.
 *
 * <p>{@link #reset()} starts a new measurement window; calls already in flight then finish into the old one.
 */
final class Instrumented implements InvocationHandler {

    /** Everything measured about one operation in the current window. */
    static final class OpStats {
        final AtomicLong calls = new AtomicLong();
        final AtomicLong errors = new AtomicLong();
        final AtomicLong bytes = new AtomicLong();
        final Histogram latency = new Histogram();
        /** Object puts: bytes sent; object gets: bytes received; calls returning a list: its sizes. */
        final Histogram sizes = new Histogram();

        private final long startNanos = System.nanoTime();
        private int inFlight;
        private int maxInFlight;
        private long lastChange = startNanos;
        private double inFlightIntegral;

        synchronized void started() {
            advance();
            inFlight++;
            maxInFlight = Math.max(maxInFlight, inFlight);
        }

        synchronized void finished() {
            advance();
            inFlight--;
        }

        private void advance() {
            long now = System.nanoTime();
            inFlightIntegral += (double) inFlight * (now - lastChange);
            lastChange = now;
        }

        synchronized int inFlight() {
            return inFlight;
        }

        synchronized int maxInFlight() {
            return maxInFlight;
        }

        /** Calls in flight, averaged over the time since the window opened. */
        synchronized double meanInFlight() {
            advance();
            long span = lastChange - startNanos;
            return span <= 0 ? 0 : inFlightIntegral / span;
        }
    }

    private final Object target;
    private final boolean objectStore;
    private volatile Map<String, OpStats> ops = new ConcurrentHashMap<>();

    private Instrumented(Object target, boolean objectStore) {
        this.target = target;
        this.objectStore = objectStore;
    }

    /** A counting view of {@code store}, and the handle that reads its counts. */
    static Instrumented objectStore(ObjectStore store) {
        return new Instrumented(store, true);
    }

    static Instrumented metadataStore(MetadataStore store) {
        return new Instrumented(store, false);
    }

    ObjectStore asObjectStore() {
        return (ObjectStore)
                Proxy.newProxyInstance(ObjectStore.class.getClassLoader(), new Class<?>[] {ObjectStore.class}, this);
    }

    MetadataStore asMetadataStore() {
        return (MetadataStore) Proxy.newProxyInstance(
                MetadataStore.class.getClassLoader(), new Class<?>[] {MetadataStore.class}, this);
    }

    /** Opens a new window: counts, latencies and in-flight means start from zero. */
    void reset() {
        ops = new ConcurrentHashMap<>();
    }

    /** The stats of one operation in the current window (empty stats if it was never called). */
    OpStats op(String name) {
        return ops.computeIfAbsent(name, n -> new OpStats());
    }

    long calls(String name) {
        OpStats s = ops.get(name);
        return s == null ? 0 : s.calls.get();
    }

    /** Calls in flight now, per operation of the current window that has any, e.g. {@code {getRange=64}}. */
    Map<String, Integer> inFlight() {
        Map<String, Integer> out = new TreeMap<>();
        ops.forEach((k, v) -> {
            if (v.inFlight() > 0) {
                out.put(k, v.inFlight());
            }
        });
        return out;
    }

    @Override
    @SuppressWarnings("ReferenceEquality") // a proxy is equal only to itself
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
        if (method.getDeclaringClass() == Object.class) {
            return switch (method.getName()) {
                case "equals" -> proxy == args[0];
                case "hashCode" -> System.identityHashCode(proxy);
                default -> "instrumented " + target;
            };
        }
        if (!CompletableFuture.class.isAssignableFrom(method.getReturnType())) {
            return call(method, args);
        }
        OpStats stats = op(name(method, args));
        stats.calls.incrementAndGet();
        long putBytes = -1;
        if (objectStore
                && args != null
                && args.length == 2
                && (args[1] instanceof ByteBuffer || args[1] instanceof dev.lakestream.core.objectstore.ObjectBody)) {
            putBytes = args[1] instanceof ByteBuffer b
                    ? b.remaining()
                    : ((dev.lakestream.core.objectstore.ObjectBody) args[1]).length();
            stats.bytes.addAndGet(putBytes);
            stats.sizes.record(putBytes);
        }
        boolean countReadBytes = objectStore && putBytes < 0;
        stats.started();
        long start = System.nanoTime();
        CompletableFuture<?> f;
        try {
            f = (CompletableFuture<?>) call(method, args);
        } catch (Throwable t) {
            stats.finished();
            stats.errors.incrementAndGet();
            throw t;
        }
        // The caller gets the store's own future; the accounting hangs off it.
        // the caller holds f itself; this stage only records.
        var unused = f.whenComplete((result, error) -> {
            stats.latency.record(System.nanoTime() - start);
            stats.finished();
            if (error != null) {
                stats.errors.incrementAndGet();
            } else if (countReadBytes && result instanceof ByteBuffer b) {
                stats.bytes.addAndGet(b.remaining());
                stats.sizes.record(b.remaining());
            } else if (countReadBytes && result instanceof io.netty.buffer.ByteBuf b) {
                stats.bytes.addAndGet(b.readableBytes());
                stats.sizes.record(b.readableBytes());
            } else if (result instanceof java.util.Collection<?> c) {
                stats.sizes.record(c.size());
            }
        });
        return f;
    }

    private Object call(Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    private String name(Method method, Object[] args) {
        String name = method.getName();
        int arity = args == null ? 0 : args.length;
        // Ranged gets: into a heap buffer (key, offset, length) or into an allocator's (and the allocator).
        if (objectStore && name.equals("get") && (arity == 3 || arity == 4)) {
            return "getRange";
        }
        if (!objectStore
                && name.equals("put")
                && arity == 3
                && args[2] instanceof PutOptions o
                && o.isSequenceKeyPut()) {
            return "putSequence";
        }
        return name;
    }
}
