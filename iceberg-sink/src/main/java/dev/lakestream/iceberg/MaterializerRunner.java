package dev.lakestream.iceberg;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one {@link TopicMaterializer} on its own thread: polls at once while entries keep coming, every
 * {@code pollInterval} when caught up, and backs off (up to 30 s) while it fails. {@link #close()} commits what is
 * pending and stops. The broker plugin and the standalone tool both host materializers through this class.
 */
public final class MaterializerRunner implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(MaterializerRunner.class);
    private static final long MAX_BACKOFF_MS = 30_000;

    private final TopicMaterializer materializer;
    private final Duration pollInterval;
    private final ScheduledExecutorService thread;
    private volatile boolean stopping;
    private long backoffMs;

    public MaterializerRunner(TopicMaterializer materializer, Duration pollInterval) {
        this.materializer = Objects.requireNonNull(materializer, "materializer");
        this.pollInterval = Objects.requireNonNull(pollInterval, "pollInterval");
        this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "lakestream-iceberg-" + materializer.topic());
            t.setDaemon(true);
            return t;
        });
    }

    public TopicMaterializer materializer() {
        return materializer;
    }

    public MaterializerRunner start() {
        thread.execute(this::step);
        return this;
    }

    private void step() {
        if (stopping) {
            return;
        }
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
        }
        if (!stopping) {
            thread.schedule(this::step, delayMs, TimeUnit.MILLISECONDS);
        }
    }

    /** Stops polling, commits what is pending (on the materializer's thread) and ends the thread. */
    @Override
    public void close() {
        stopping = true;
        try {
            thread.submit(materializer::close).get(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            LOG.warn("closing the materializer of {} failed", materializer.topic(), e);
        } finally {
            thread.shutdownNow();
        }
    }
}
