package dev.lakestream.iceberg;

import dev.lakestream.core.concurrent.DaemonThreads;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one {@link TopicMaterializer}: polls at once while entries keep coming, every {@code pollInterval} when
 * caught up, and backs off (up to 30 s) while it fails. {@link #closeAsync()} commits what is pending and stops.
 * The broker plugin and the standalone tool both host materializers through this class.
 *
 * <p>It runs on its own thread, or on a pool shared with other runners (a host with many topics): either way one
 * step at a time (each step schedules the next; closing waits for a running step), so the materializer stays
 * confined to one thread at a time.
 */
public final class MaterializerRunner implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(MaterializerRunner.class);
    /** Not RetryPolicy: this is the delay of the next scheduled step (doubling while RETRYING), not a retried call. */
    private static final long MAX_BACKOFF_MS = 30_000;
    /**
     * A step running this long is reported by {@link #warnIfStepRunsPast}: far past a read and a commit on a slow
     * store, and short of the 90 s after which a table that stopped moving is noticed from outside.
     */
    public static final Duration STUCK_STEP = Duration.ofSeconds(60);

    private final TopicMaterializer materializer;
    private final Duration pollInterval;
    private final ScheduledExecutorService executor;
    private final boolean ownsExecutor;
    private final CompletableFuture<Void> closed = new CompletableFuture<>();
    private long backoffMs;

    // ---- written by the step, read by hosts' watchdog calls (warnIfStepRunsPast) ----
    private volatile Thread stepThread;
    private volatile long stepStartedNanos;
    /** The start time of the step already reported as stuck (0: none). */
    private volatile long reportedStepNanos;

    // ---- guarded by this: the step/close hand-over ----
    private boolean stopping;
    private boolean stepping;
    private ScheduledFuture<?> nextStep;

    /** A runner on a thread of its own. */
    public MaterializerRunner(TopicMaterializer materializer, Duration pollInterval) {
        this(
                materializer,
                pollInterval,
                Executors.newSingleThreadScheduledExecutor(
                        DaemonThreads.named("lakestream-iceberg-" + materializer.topic())),
                true);
    }

    /** A runner on {@code pool}, shared with other runners (not owned: it stays up when this runner closes). */
    public MaterializerRunner(TopicMaterializer materializer, Duration pollInterval, ScheduledExecutorService pool) {
        this(materializer, pollInterval, pool, false);
    }

    private MaterializerRunner(
            TopicMaterializer materializer,
            Duration pollInterval,
            ScheduledExecutorService executor,
            boolean ownsExecutor) {
        this.materializer = Objects.requireNonNull(materializer, "materializer");
        this.pollInterval = Objects.requireNonNull(pollInterval, "pollInterval");
        this.executor = Objects.requireNonNull(executor, "executor");
        this.ownsExecutor = ownsExecutor;
    }

    public TopicMaterializer materializer() {
        return materializer;
    }

    public MaterializerRunner start() {
        executor.execute(this::step);
        return this;
    }

    private void step() {
        synchronized (this) {
            if (stopping) {
                return; // closeAsync() runs the close
            }
            stepping = true;
        }
        stepStartedNanos = System.nanoTime();
        stepThread = Thread.currentThread();
        long delayMs;
        try {
            int entries = materializer.poll();
            MaterializerStatus.State state = materializer.status().state();
            if (state == MaterializerStatus.State.RETRYING) {
                backoffMs = Math.min(MAX_BACKOFF_MS, Math.max(pollInterval.toMillis(), backoffMs * 2));
                delayMs = backoffMs;
            } else {
                backoffMs = 0;
                delayMs = entries > 0 ? 0 : pollInterval.toMillis();
            }
        } catch (RuntimeException | Error e) {
            // poll() handles its own failures; this is a bug, but the topic must not stop silently.
            LOG.error("materializer of {} threw", materializer.topic(), e);
            delayMs = MAX_BACKOFF_MS;
        } finally {
            stepThread = null;
            if (reportedStepNanos == stepStartedNanos) {
                LOG.info(
                        "materializer of {}: the step reported stuck returned after {} s",
                        materializer.topic(),
                        (System.nanoTime() - stepStartedNanos) / 1_000_000_000);
                reportedStepNanos = 0;
            }
        }
        synchronized (this) {
            stepping = false;
            if (stopping) {
                executor.execute(this::finish);
            } else {
                nextStep = executor.schedule(this::step, delayMs, TimeUnit.MILLISECONDS);
            }
        }
    }

    /**
     * Logs a warning, once per step, when the step running now has run longer than {@code limit}, with the stack of
     * the thread running it and the materializer's status: a topic whose table stops moving must say where it waits.
     * Called by hosts from their own periodic task (not the runner's thread, which is the one that may be stuck).
     *
     * @return whether this call reported a step
     */
    public boolean warnIfStepRunsPast(Duration limit) {
        Thread thread = stepThread;
        long started = stepStartedNanos;
        long ranNanos = System.nanoTime() - started;
        if (thread == null || ranNanos < limit.toNanos() || reportedStepNanos == started) {
            return false;
        }
        reportedStepNanos = started;
        StringBuilder stack = new StringBuilder();
        for (StackTraceElement e : thread.getStackTrace()) {
            stack.append("\n\tat ").append(e);
        }
        LOG.warn(
                "materializer of {}: a step has run for {} s (status {}); thread {} ({}) is at:{}",
                materializer.topic(),
                ranNanos / 1_000_000_000,
                materializer.status(),
                thread.getName(),
                thread.getState(),
                stack);
        return true;
    }

    /**
     * Stops polling and commits what is pending, on the runner's thread, without blocking the caller; the future
     * completes when the materializer is closed.
     */
    public CompletableFuture<Void> closeAsync() {
        synchronized (this) {
            if (stopping) {
                return closed;
            }
            stopping = true;
            if (!stepping) {
                if (nextStep != null) {
                    nextStep.cancel(false);
                }
                executor.execute(this::finish);
            }
        }
        return closed;
    }

    private void finish() {
        try {
            materializer.close();
            closed.complete(null);
        } catch (RuntimeException | Error e) {
            LOG.warn("closing the materializer of {} failed", materializer.topic(), e);
            closed.completeExceptionally(e);
        } finally {
            if (ownsExecutor) {
                executor.shutdown();
            }
        }
    }

    /** {@link #closeAsync()}, waiting up to 60 s for it. */
    @Override
    public void close() {
        try {
            closeAsync().get(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            LOG.warn("closing the materializer of {} failed", materializer.topic(), e);
        } finally {
            if (ownsExecutor) {
                executor.shutdownNow();
            }
        }
    }
}
