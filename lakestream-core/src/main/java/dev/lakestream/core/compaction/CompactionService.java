package dev.lakestream.core.compaction;

import dev.lakestream.core.Lakestream;
import dev.lakestream.core.concurrent.DaemonThreads;
import dev.lakestream.core.concurrent.Futures;
import dev.lakestream.core.index.OffsetIndex;
import dev.lakestream.core.metrics.CompactionMetrics;
import dev.lakestream.core.segment.SegmentFormat;
import dev.lakestream.core.segment.SegmentFormats;
import dev.lakestream.core.wal.ObjectCache;
import dev.lakestream.core.wal.ReaderConfig;
import dev.lakestream.core.wal.WalReader;
import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Compacts the streams a host names ({@code streams}: a broker's owned topics' streams, or every stream for the
 * standalone tool) into segments, a pass every {@link CompactionConfig#interval()}: for each stream, steps of
 * {@link StreamCompactor} until it has nothing old enough left or has had one small segment this pass, then merges of
 * its small segments, a tier of four at a time ({@link CompactionPlan#merge}). Paced so
 * that payload bytes and segment PUTs stay under the configured rates over all streams.
 *
 * <p>Everything runs on the service's one thread ({@code lakestream-compaction}): the passes, the Parquet (or other)
 * encoding, the pacing. Memory: one segment at a time, so at most {@code segmentSize} plus one read
 * ({@link StreamCompactor#READ_BYTES}) plus the reader's own cache ({@link #READER_CACHE_BYTES}).
 *
 * <p>Two compactors of one stream (an ownership move, a zombie process) are safe: each switch overwrites and deletes
 * only records unchanged since it planned ({@link SegmentSwitch}).
 */
public final class CompactionService implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(CompactionService.class);

    /** The compactor's own WAL cache: its reads must not evict what consumers read. */
    static final long READER_CACHE_BYTES = 64L << 20;

    /** How long {@link #close()} waits for a step in flight. */
    public static final Duration CLOSE_WAIT = Duration.ofSeconds(10);

    private final CompactionConfig config;
    private final Supplier<Collection<Long>> streams;
    private final CompactionMetrics metrics;
    private final ScheduledExecutorService thread;
    private final WalReader reader;
    /** Null when the configured format is not installed: then the service does nothing. */
    private final StreamCompactor compactor;

    /** Owned by the service's thread. */
    private long nextAllowedNanos = System.nanoTime();

    private final Map<Long, String> lastFailure = new HashMap<>();

    private final Object lock = new Object();
    /** Changed under {@link #lock}: set once by {@link #close}, after which nothing is scheduled. */
    private boolean stopping;

    private ScheduledFuture<?> next;
    private CompletableFuture<Void> current = CompletableFuture.completedFuture(null);

    private CompactionService(
            Lakestream lakestream,
            CompactionConfig config,
            Supplier<Collection<Long>> streams,
            SegmentFormats formats,
            Clock clock) {
        this.config = config;
        this.streams = streams;
        this.metrics = lakestream.metrics().compaction();
        this.thread = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("lakestream-compaction"));
        OffsetIndex index = new OffsetIndex(lakestream.metadataStore());
        this.reader = new WalReader(
                lakestream.objectStore(),
                index,
                lakestream.voidedRecords(),
                new ObjectCache(READER_CACHE_BYTES),
                new ReaderConfig(READER_CACHE_BYTES, 1L << 20, 4, 4L << 20),
                formats);
        Optional<SegmentFormat> format = formats.named(config.format());
        this.compactor = format.map(f -> new StreamCompactor(
                        index,
                        id -> lakestream.stream(id).startOffset(),
                        reader,
                        lakestream.objectStore(),
                        new SegmentSwitch(
                                lakestream.metadataStore(), lakestream.config().metadataRoot()),
                        f,
                        config,
                        clock,
                        thread))
                .orElse(null);
        if (config.enabled() && compactor == null) {
            log.warn(
                    "Compaction is off in this process: the segment format '{}' ({}) is not installed here"
                            + " (installed: {}); streams keep their WAL objects",
                    config.format(),
                    CompactionConfig.FORMAT,
                    formats.describe());
        }
    }

    /**
     * Starts compacting in the background (the first pass after one interval, so a starting broker settles first);
     * returns at once. Writes the configured format from the log's formats ({@link Lakestream#segmentFormats()}). With
     * {@link CompactionConfig#enabled()} false, or the format not installed, does nothing.
     */
    public static CompactionService start(
            Lakestream lakestream, CompactionConfig config, Supplier<Collection<Long>> streams) {
        return start(lakestream, config, streams, lakestream.segmentFormats(), Clock.systemUTC());
    }

    /** As above, with the given formats and clock (tests). */
    public static CompactionService start(
            Lakestream lakestream,
            CompactionConfig config,
            Supplier<Collection<Long>> streams,
            SegmentFormats formats,
            Clock clock) {
        CompactionService service = new CompactionService(lakestream, config, streams, formats, clock);
        if (service.compacts()) {
            log.info(
                    "Compaction into {} segments: every {}, ranges older than {}, segments of {} bytes, at most {} bytes/s"
                            + " and {} PUTs/s",
                    config.format(),
                    config.interval(),
                    config.delay(),
                    config.segmentSize(),
                    config.maxBytesPerSecond(),
                    config.maxPutsPerSecond());
            service.metrics.active(true);
            service.schedule(config.interval());
        } else if (!config.enabled()) {
            log.info("Compaction is disabled in this process ({}=false)", CompactionConfig.ENABLED);
        }
        return service;
    }

    /** Whether this service compacts at all (enabled, and its format installed). */
    public boolean compacts() {
        return config.enabled() && compactor != null;
    }

    /** One pass now, after the one in flight (if any); completes when it ends. For tests and the standalone tool. */
    public CompletableFuture<Void> runOnce() {
        if (compactor == null) {
            return CompletableFuture.failedFuture(new IllegalStateException(
                    "compaction needs the segment format '" + config.format() + "', which is not installed"));
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        thread.execute(() -> {
            CompletableFuture<Void> pass;
            synchronized (lock) {
                pass = current.handle((v, e) -> null).thenCompose(v -> pass());
                current = pass;
            }
            // the callback completes done either way.
            var unused = pass.whenComplete((v, e) -> done.complete(null));
        });
        return done;
    }

    private void schedule(Duration delay) {
        synchronized (lock) {
            if (!stopping) {
                next = thread.schedule(this::tick, delay.toNanos(), TimeUnit.NANOSECONDS);
            }
        }
    }

    private void tick() {
        CompletableFuture<Void> pass;
        synchronized (lock) {
            if (stopping) {
                return;
            }
            pass = current.handle((v, e) -> null).thenCompose(v -> pass());
            current = pass;
        }
        // the callback schedules the next pass either way.
        var unused = pass.whenComplete((v, e) -> schedule(config.interval()));
    }

    /** One pass over the streams the host names now, one stream after the other. */
    private CompletableFuture<Void> pass() {
        List<Long> ids = List.copyOf(streams.get());
        metrics.retainLag(new HashSet<>(ids));
        lastFailure.keySet().retainAll(ids);
        CompletableFuture<Void> chain = CompletableFuture.completedFuture(null);
        for (long id : ids) {
            chain = chain.thenComposeAsync(
                    v -> isStopping() ? CompletableFuture.completedFuture(null) : compact(id), thread);
        }
        return chain.whenComplete((v, e) -> metrics.passEnded());
    }

    /** Steps on one stream until it has nothing to do, or one small segment (the rest waits for the next pass). */
    /** Compacts the stream's WAL (see {@link #compactWal}), then merges its small segments. */
    private CompletableFuture<Void> compact(long id) {
        // No merge after a failed WAL step: the same fault would fail it too, and count twice.
        return compactWal(id)
                .thenCompose(ok -> ok && !isStopping() ? trimTail(id) : CompletableFuture.completedFuture(false))
                .thenCompose(ok -> ok && !isStopping() ? merge(id) : CompletableFuture.completedFuture(null));
    }

    /** Rewrites the tail of a compacted record a trim has cut past half of; completes with whether it did not fail. */
    private CompletableFuture<Boolean> trimTail(long id) {
        return paced().thenCompose(v -> compactor.trimTail(id))
                .handleAsync(
                        (step, e) -> {
                            if (e != null) {
                                failed(id, Futures.unwrap(e));
                                return false;
                            }
                            if (step.kind() == StreamCompactor.Step.Kind.TAIL_REWRITTEN) {
                                metrics.tailRewritten(step.segmentBytes());
                                charge(step.payloadBytes());
                            }
                            return true;
                        },
                        thread);
    }

    /** Merges until there is nothing to merge: each merge makes one of up to four, so this ends. */
    private CompletableFuture<Void> merge(long id) {
        return paced().thenCompose(v -> compactor.merge(id))
                .handleAsync(
                        (step, e) -> {
                            if (e != null) {
                                failed(id, Futures.unwrap(e));
                                return CompletableFuture.<Void>completedFuture(null);
                            }
                            if (step.kind() == StreamCompactor.Step.Kind.NOTHING) {
                                return CompletableFuture.<Void>completedFuture(null);
                            }
                            if (step.kind() == StreamCompactor.Step.Kind.LEFTOVERS_DELETED) {
                                metrics.leftoversDeleted(step.records());
                            } else {
                                metrics.segmentsMerged(step.records(), step.segmentBytes());
                                charge(step.payloadBytes());
                            }
                            return isStopping() ? CompletableFuture.<Void>completedFuture(null) : merge(id);
                        },
                        thread)
                .thenCompose(f -> f);
    }

    /** Steps on the stream's WAL; completes with whether none failed. */
    private CompletableFuture<Boolean> compactWal(long id) {
        return paced().thenCompose(v -> compactor.step(id))
                .handleAsync(
                        (step, e) -> {
                            if (e != null) {
                                failed(id, Futures.unwrap(e));
                                return CompletableFuture.completedFuture(false);
                            }
                            lastFailure.remove(id);
                            metrics.lag(id, step.lagMillis(), step.lagBytes());
                            switch (step.kind()) {
                                case NOTHING:
                                    return CompletableFuture.completedFuture(true);
                                case LEFTOVERS_DELETED:
                                    metrics.leftoversDeleted(step.records());
                                    return isStopping() ? CompletableFuture.completedFuture(true) : compactWal(id);
                                default:
                                    metrics.segmentWritten(step.entries(), step.payloadBytes(), step.segmentBytes());
                                    charge(step.payloadBytes());
                                    boolean full = step.payloadBytes() >= config.segmentSize();
                                    return full && !isStopping()
                                            ? compactWal(id)
                                            : CompletableFuture.completedFuture(true);
                            }
                        },
                        thread)
                .thenCompose(f -> f);
    }

    /** Completes once the rates allow the next segment. */
    private CompletableFuture<Void> paced() {
        long wait = nextAllowedNanos - System.nanoTime();
        if (wait <= 0) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<Void> ready = new CompletableFuture<>();
        thread.schedule(() -> ready.complete(null), wait, TimeUnit.NANOSECONDS);
        return ready;
    }

    /** Moves the next allowed start past what one segment of {@code bytes} costs under both rates. */
    private void charge(long bytes) {
        long byBytes = (long) (bytes * 1e9 / config.maxBytesPerSecond());
        long byPuts = (long) (1e9 / config.maxPutsPerSecond());
        nextAllowedNanos = Math.max(nextAllowedNanos, System.nanoTime()) + Math.max(byBytes, byPuts);
    }

    private void failed(long id, Throwable e) {
        metrics.failed(id, e);
        String message = e.toString();
        // By kind, not text: a message names a fresh segment key each time, and would never look like a repeat.
        String kind = e.getClass().getName();
        if (!kind.equals(lastFailure.put(id, kind))) {
            log.warn("Compacting stream {} failed (retried next pass; its WAL objects stay): {}", id, message);
        } else {
            log.debug("Compacting stream {} failed again: {}", id, message);
        }
    }

    private boolean isStopping() {
        synchronized (lock) {
            return stopping;
        }
    }

    /** Stops: nothing new starts; waits up to {@link #CLOSE_WAIT} for the step in flight. */
    @Override
    public void close() {
        CompletableFuture<Void> inFlight;
        synchronized (lock) {
            if (stopping) {
                return;
            }
            stopping = true;
            if (next != null) {
                next.cancel(false);
            }
            inFlight = current;
        }
        try {
            inFlight.handle((v, e) -> null).get(CLOSE_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            log.warn("Compaction did not stop within {}; closing anyway", CLOSE_WAIT);
        }
        metrics.active(false);
        thread.shutdownNow();
        reader.close();
    }
}
