package dev.lakestream.core.gc;

import dev.lakestream.core.Lakestream;
import dev.lakestream.core.concurrent.DaemonThreads;
import dev.lakestream.core.concurrent.Futures;
import dev.lakestream.core.metrics.GcMetrics;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the {@link WalGarbageCollector} of a {@link Lakestream} every {@link GcConfig#interval()}, in every process
 * that starts it, with at most one collecting per deployment: a process collects only while it holds the
 * {@link GcLease} (an ephemeral record, so it is released when its holder's session ends and taken by another
 * process's next attempt). Deletes are paced to {@link GcConfig#maxDeletesPerSecond()}, and before each delete
 * request the run checks that the lease is still its own, so a process that lost it stops within one request.
 * What it does is recorded in {@link Lakestream#metrics()}{@code .gc()}.
 *
 * <p>All work runs on the service's own thread and on the stores' callbacks; {@link #start} returns at once and
 * {@link #close} within {@link #CLOSE_WAIT} (a running run is stopped at its next delete request). One service per
 * {@code Lakestream} (they would share its GC metrics); close the service before the {@code Lakestream}.
 */
public final class GcService implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(GcService.class);
    /** How long {@link #close()} waits for a running run to stop and the lease to be given back. */
    public static final Duration CLOSE_WAIT = Duration.ofSeconds(5);

    private final GcConfig config;
    private final Clock clock;
    private final GcMetrics metrics;
    private final WalGarbageCollector collector;
    private final GcLease lease;
    private final ScheduledExecutorService scheduler;
    private final DeleteRateLimiter limiter;

    private final Object lock = new Object();
    /** Changed under {@link #lock}: set once by {@link #closeAsync}, after which nothing is scheduled. */
    private boolean stopping;

    private ScheduledFuture<?> nextTick;
    private CompletableFuture<Void> current = CompletableFuture.completedFuture(null);
    private CompletableFuture<Void> closed;
    private volatile GcResult lastResult;

    private GcService(Lakestream lakestream, GcConfig config, Clock clock) {
        this.config = config;
        this.clock = clock;
        this.metrics = lakestream.metrics().gc();
        this.collector = new WalGarbageCollector(
                lakestream.objectStore(),
                lakestream.metadataStore(),
                lakestream.config().metadataRoot(),
                config,
                clock);
        String holder = "pid " + ProcessHandle.current().pid() + " " + UUID.randomUUID();
        this.lease = new GcLease(lakestream.metadataStore(), lakestream.config().metadataRoot(), holder);
        this.scheduler = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("lakestream-gc"));
        this.limiter = new DeleteRateLimiter(config.maxDeletesPerSecond(), scheduler, System::nanoTime);
    }

    /**
     * Starts collecting in the background (the first attempt at once); returns without waiting for anything.
     * With {@link GcConfig#enabled()} false, returns a service that does nothing.
     */
    public static GcService start(Lakestream lakestream, GcConfig config) {
        return start(lakestream, config, Clock.systemUTC());
    }

    /** As {@link #start(Lakestream, GcConfig)}, judging object ages by {@code clock}. */
    public static GcService start(Lakestream lakestream, GcConfig config, Clock clock) {
        GcService service = new GcService(lakestream, config, clock);
        if (config.enabled()) {
            log.info(
                    "WAL garbage collection: every {}, at most {} deletes/s, lease {}",
                    config.interval(),
                    config.maxDeletesPerSecond(),
                    service.lease.key());
            service.schedule(Duration.ZERO);
        } else {
            log.info("WAL garbage collection is disabled in this process (lakestream.gc.enabled=false)");
            // closing a disabled service has nothing to wait for.
            var unused = service.closeAsync();
        }
        return service;
    }

    /** What this process's collector did, and whether it holds the lease. */
    public GcStatus status() {
        return new GcStatus(
                config.enabled(),
                metrics.leaseHeld(),
                metrics.runs(),
                metrics.failedRuns(),
                metrics.deletedObjects(),
                metrics.deletedBytes(),
                metrics.lastRunEnd(),
                metrics.lastError(),
                Optional.ofNullable(lastResult));
    }

    private void schedule(Duration delay) {
        synchronized (lock) {
            if (!stopping) {
                nextTick = scheduler.schedule(this::tick, delay.toNanos(), TimeUnit.NANOSECONDS);
            }
        }
    }

    /** One attempt: take (or confirm) the lease, and run the collector if it is ours; then schedule the next. */
    @SuppressWarnings("FutureReturnValueIgnored") // handle's nested future is flattened by thenCompose(f -> f)
    private void tick() {
        CompletableFuture<Void> attempt = new CompletableFuture<>();
        synchronized (lock) {
            if (stopping) {
                return;
            }
            current = attempt;
        }
        // Started from a completed future so that a call that throws instead of failing its future is handled alike.
        // The last callback schedules the next tick either way.
        var unused = CompletableFuture.completedFuture(null)
                .thenCompose(v -> lease.acquire())
                .handle((held, e) -> {
                    if (e != null) {
                        log.warn(
                                "Could not take or confirm the GC lease {}: {}",
                                lease.key(),
                                Futures.unwrap(e).toString());
                        metrics.failed(clock.instant(), Futures.unwrap(e));
                        metrics.leaseHeld(false);
                        return CompletableFuture.<Void>completedFuture(null);
                    }
                    if (held != metrics.leaseHeld()) {
                        log.info(
                                held
                                        ? "This process took the GC lease {}"
                                        : "This process no longer holds the GC lease {}",
                                lease.key());
                    }
                    metrics.leaseHeld(held);
                    return held ? run() : CompletableFuture.<Void>completedFuture(null);
                })
                .thenCompose(f -> f)
                .whenComplete((v, e) -> {
                    attempt.complete(null);
                    schedule(config.interval());
                });
    }

    private CompletableFuture<Void> run() {
        long start = System.nanoTime();
        return CompletableFuture.completedFuture(null)
                .thenCompose(v -> collector.runOnce(new ServiceGate()))
                .handle((result, e) -> {
                    ranFor(Duration.ofNanos(System.nanoTime() - start), result, e);
                    return null;
                });
    }

    /** Records how a run ended. */
    private void ranFor(Duration took, GcResult result, Throwable e) {
        Instant end = clock.instant();
        if (e == null) {
            lastResult = result;
            metrics.runSucceeded(end, took, result.deadStreamsCleared());
            if (result.deletedObjects() > 0 || result.deadStreamsCleared() > 0) {
                log.info(
                        "GC run took {} ms: deleted {} objects ({} bytes), cleared {} deleted streams",
                        took.toMillis(),
                        result.deletedObjects(),
                        result.deletedBytes(),
                        result.deadStreamsCleared());
            }
            return;
        }
        Throwable cause = Futures.unwrap(e);
        if (cause instanceof CancellationException && isStopping()) {
            log.info("GC run stopped after {} ms: the service is closing", took.toMillis());
            return;
        }
        if (cause instanceof LeaseLostException) {
            metrics.leaseHeld(false);
        }
        log.warn("GC run failed after {} ms: {}", took.toMillis(), cause.toString());
        metrics.runFailed(end, took, cause);
    }

    /** Admits a run's deletes: paced to the rate limit, and only while the lease is still this process's. */
    private final class ServiceGate implements DeleteGate {

        @Override
        public int maxBatch() {
            return config.deleteBatchSize();
        }

        @Override
        public CompletableFuture<Void> admit(int objects) {
            return limiter.acquire(objects).thenCompose(v -> lease.held()).thenAccept(held -> {
                if (!held) {
                    throw new LeaseLostException("the GC lease " + lease.key() + " is no longer this process's: "
                            + "its session ended or another process took it; stopping this run");
                }
            });
        }

        @Override
        public void deleted(int objects, long bytes) {
            metrics.deleted(objects, bytes);
        }
    }

    /** A run stopped because the lease is gone. */
    static final class LeaseLostException extends RuntimeException {
        LeaseLostException(String message) {
            super(message);
        }
    }

    private boolean isStopping() {
        synchronized (lock) {
            return stopping;
        }
    }

    /**
     * Stops: no further run starts, a running one stops at its next delete request, and the lease is given back.
     * Completes when that is done; never fails.
     */
    public CompletableFuture<Void> closeAsync() {
        CompletableFuture<Void> running;
        synchronized (lock) {
            if (closed != null) {
                return closed;
            }
            stopping = true;
            if (nextTick != null) {
                nextTick.cancel(false);
            }
            running = current;
            closed = new CompletableFuture<>();
        }
        limiter.close();
        CompletableFuture<Void> done = closed;
        // the callback completes done either way.
        var unused = running.thenCompose(
                        v -> config.enabled() ? lease.release() : CompletableFuture.<Void>completedFuture(null))
                .whenComplete((v, e) -> {
                    if (e != null) {
                        log.warn(
                                "Could not give the GC lease {} back (it goes when the session ends): {}",
                                lease.key(),
                                Futures.unwrap(e).toString());
                    }
                    if (config.enabled()) {
                        metrics.leaseHeld(false);
                    }
                    scheduler.shutdownNow();
                    done.complete(null);
                });
        return done;
    }

    /** {@link #closeAsync()}, waiting at most {@link #CLOSE_WAIT}. */
    @Override
    public void close() {
        try {
            closeAsync().get(CLOSE_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            log.warn("The GC service did not stop within {}; leaving it to finish in the background", CLOSE_WAIT);
            scheduler.shutdownNow();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.util.concurrent.ExecutionException e) {
            log.warn("Closing the GC service failed", e.getCause());
        }
    }
}
