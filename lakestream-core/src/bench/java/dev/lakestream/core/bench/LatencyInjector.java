package dev.lakestream.core.bench;

import dev.lakestream.core.objectstore.ObjectStore;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * An object store decorator that makes every put and get (whole or ranged) wait a random time before it is
 * sent, as a remote object store's network and service time would: lognormal, with median {@code p50} and
 * 99th percentile {@code p99} (sigma = ln(p99 / p50) / z(0.99)). Every delay drawn is recorded, so the
 * run can print the distribution actually injected. Other calls pass straight through.
 */
final class LatencyInjector implements InvocationHandler, AutoCloseable {

    private static final double Z_99 = 2.3263478740408408;
    private static final Set<String> DELAYED = Set.of("put", "putIfAbsent", "get");

    private final ObjectStore target;
    private final double mu;
    private final double sigma;
    private final SplittableRandom random;
    private final ScheduledExecutorService timer;
    final Histogram injected = new Histogram();

    LatencyInjector(ObjectStore target, double p50Millis, double p99Millis, long seed) {
        this.target = target;
        this.mu = Math.log(p50Millis * 1e6);
        this.sigma = Math.log(p99Millis / p50Millis) / Z_99;
        this.random = new SplittableRandom(seed);
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "bench-latency-injector");
            t.setDaemon(true);
            return t;
        });
    }

    ObjectStore asObjectStore() {
        return (ObjectStore)
                Proxy.newProxyInstance(ObjectStore.class.getClassLoader(), new Class<?>[] {ObjectStore.class}, this);
    }

    /** One lognormal delay, in nanoseconds. */
    long drawNanos() {
        double gaussian;
        synchronized (random) {
            // Box-Muller on two uniforms in (0, 1].
            double u1 = 1.0 - random.nextDouble();
            double u2 = random.nextDouble();
            gaussian = Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
        }
        return (long) Math.exp(mu + sigma * gaussian);
    }

    @Override
    @SuppressWarnings("ReferenceEquality") // a proxy is equal only to itself
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
        if (method.getDeclaringClass() == Object.class) {
            return switch (method.getName()) {
                case "equals" -> proxy == args[0];
                case "hashCode" -> System.identityHashCode(proxy);
                default -> "latency-injected " + target;
            };
        }
        if (!DELAYED.contains(method.getName()) || !CompletableFuture.class.isAssignableFrom(method.getReturnType())) {
            return call(method, args);
        }
        long delay = drawNanos();
        injected.record(delay);
        CompletableFuture<Object> result = new CompletableFuture<>();
        // a timer: the task completes result either way.
        var unused = timer.schedule(
                () -> {
                    try {
                        // the callback completes result either way.
                        var unusedCall = ((CompletableFuture<?>) call(method, args)).whenComplete((v, e) -> {
                            if (e != null) {
                                result.completeExceptionally(e);
                            } else {
                                result.complete(v);
                            }
                        });
                    } catch (Throwable t) {
                        result.completeExceptionally(t);
                    }
                },
                delay,
                TimeUnit.NANOSECONDS);
        return result;
    }

    private Object call(Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
