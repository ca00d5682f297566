package dev.lakestream.core.metadata;

import dev.lakestream.core.concurrent.DaemonThreads;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The change listeners of one {@link MetadataStore} and the one thread they run on.
 *
 * <p>Listeners run on a dedicated thread, never on a store's writer or client threads, so a slow listener delays
 * no write; one thread keeps the notifications in the order they were published. A listener that throws is logged
 * and the others still run. Once closed, published notifications are dropped.
 */
public final class MetadataListeners implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(MetadataListeners.class);

    private final String address;
    private final Duration closeWait;
    private final CopyOnWriteArrayList<Consumer<Notification>> listeners = new CopyOnWriteArrayList<>();
    private final ExecutorService notifier;
    /** The listeners' thread, so that a listener closing the store does not wait for itself. */
    private volatile Thread notifierThread;

    /**
     * @param address the store's address, for the log
     * @param threadName the name of the listeners' thread
     * @param closeWait how long {@link #close()} waits for the notifications already published
     */
    public MetadataListeners(String address, String threadName, Duration closeWait) {
        this.address = Objects.requireNonNull(address, "address");
        this.closeWait = Objects.requireNonNull(closeWait, "closeWait");
        ThreadFactory threads = DaemonThreads.named(threadName);
        this.notifier = Executors.newSingleThreadExecutor(r -> notifierThread = threads.newThread(r));
    }

    /** Adds a listener; closing the returned handle removes it. */
    public AutoCloseable add(Consumer<Notification> listener) {
        Objects.requireNonNull(listener, "listener");
        listeners.add(listener);
        return () -> listeners.remove(listener);
    }

    public boolean isEmpty() {
        return listeners.isEmpty();
    }

    /** Hands {@code notes} to every listener, in order, on the listeners' thread. */
    public void publish(List<Notification> notes) {
        if (notes.isEmpty() || listeners.isEmpty()) {
            return;
        }
        try {
            notifier.execute(() -> notes.forEach(this::dispatch));
        } catch (RejectedExecutionException e) {
            // closed: nobody listens any more
        }
    }

    /** Hands {@code note} to every listener on the listeners' thread. */
    public void publish(Notification note) {
        publish(List.of(note));
    }

    private void dispatch(Notification note) {
        for (Consumer<Notification> l : listeners) {
            try {
                l.accept(note);
            } catch (RuntimeException e) {
                LOG.warn("{}: a metadata listener failed on {}", address, note, e);
            }
        }
    }

    /**
     * Stops the listeners' thread after the notifications already published; waits for them unless called by a
     * listener (which would wait for itself).
     */
    @Override
    public void close() {
        notifier.shutdown();
        if (Thread.currentThread() == notifierThread) {
            return;
        }
        try {
            if (!notifier.awaitTermination(closeWait.toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.warn("{}: metadata listeners did not finish within {}", address, closeWait);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
