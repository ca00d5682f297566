package dev.lakestream.core.objectstore;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.DoubleSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Bounded retries with exponential backoff and full jitter, without blocking a thread.
 *
 * <p>An operation runs once, then up to {@code maxRetries} more times while its failure is retryable. The
 * wait before retry {@code n} (1-based) is drawn uniformly from {@code [0, min(maxDelay, baseDelay *
 * 2^(n-1))]} ("full jitter"), so clients that failed together do not retry together. Waits are scheduled on
 * a {@link ScheduledExecutorService}; no thread sleeps. A non-retryable failure ends the operation at once.
 *
 * <p>Which failures are retryable is the caller's business (a predicate); so is the exception reported at
 * the end, built from the last failure and the number of attempts made.
 *
 * <p>Kept rather than the AWS SDK's retry strategy (switched off): each attempt here takes its own concurrency permit
 * and checks that the store is still open, and the attempt count reaches the error (a retried conditional PUT may
 * have been the attempt that created the object).
 */
public final class RetryPolicy {

    private final int maxRetries;
    private final Duration baseDelay;
    private final Duration maxDelay;
    private final DoubleSupplier random;

    /**
     * @param maxRetries retries after the first attempt (0 = a single attempt)
     * @param baseDelay the ceiling of the first wait
     * @param maxDelay the largest ceiling of any wait
     */
    public RetryPolicy(int maxRetries, Duration baseDelay, Duration maxDelay) {
        this(maxRetries, baseDelay, maxDelay, () -> ThreadLocalRandom.current().nextDouble());
    }

    /** As above with the source of jitter in {@code [0, 1)} given, for tests. */
    public RetryPolicy(int maxRetries, Duration baseDelay, Duration maxDelay, DoubleSupplier random) {
        if (maxRetries < 0) {
            throw new IllegalArgumentException("maxRetries must be >= 0: " + maxRetries);
        }
        if (baseDelay.isNegative() || maxDelay.isNegative() || baseDelay.compareTo(maxDelay) > 0) {
            throw new IllegalArgumentException("need 0 <= baseDelay <= maxDelay: " + baseDelay + ", " + maxDelay);
        }
        this.maxRetries = maxRetries;
        this.baseDelay = baseDelay;
        this.maxDelay = maxDelay;
        this.random = Objects.requireNonNull(random, "random");
    }

    public int maxRetries() {
        return maxRetries;
    }

    /** The most attempts one operation makes: {@code maxRetries + 1}. */
    public int maxAttempts() {
        return maxRetries + 1;
    }

    /** The largest wait before retry {@code retry} (1-based): {@code min(maxDelay, baseDelay * 2^(retry-1))}. */
    public Duration backoffCeiling(int retry) {
        if (retry < 1) {
            throw new IllegalArgumentException("retry is 1-based: " + retry);
        }
        long base = baseDelay.toNanos();
        long max = maxDelay.toNanos();
        int shift = retry - 1;
        long ceiling = shift >= 62 || base > (max >> shift) ? max : base << shift;
        return Duration.ofNanos(Math.min(ceiling, max));
    }

    /** The wait before retry {@code retry} (1-based): uniform in {@code [0, backoffCeiling(retry)]}. */
    public Duration delayBeforeRetry(int retry) {
        long ceiling = backoffCeiling(retry).toNanos();
        double r = random.getAsDouble();
        return Duration.ofNanos((long) (Math.min(Math.max(r, 0.0), 1.0) * ceiling));
    }

    /**
     * Runs {@code attempt} until it succeeds, fails with a non-retryable error, or has failed
     * {@link #maxAttempts()} times.
     *
     * @param attempt starts one attempt; may also throw
     * @param retryable whether a failure (unwrapped from {@link CompletionException}) may be retried
     * @param onFailure builds the exception the result fails with, from the last failure and the number of
     *     attempts made
     * @param scheduler runs the waits between attempts; if it refuses a task (shut down), the operation
     *     ends with the last failure
     * @return a future completed on the thread that completed the last attempt (or the scheduler's);
     *     cancelling it stops further attempts
     */
    public <T> CompletableFuture<T> run(
            Supplier<CompletableFuture<T>> attempt,
            Predicate<Throwable> retryable,
            BiFunction<Throwable, Integer, Throwable> onFailure,
            ScheduledExecutorService scheduler) {
        CompletableFuture<T> result = new CompletableFuture<>();
        new Run<>(attempt, retryable, onFailure, scheduler, result).next();
        return result;
    }

    /** The cause inside {@link CompletionException} and {@link ExecutionException} wrappers. */
    public static Throwable unwrap(Throwable t) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    private final class Run<T> {
        private final Supplier<CompletableFuture<T>> attempt;
        private final Predicate<Throwable> retryable;
        private final BiFunction<Throwable, Integer, Throwable> onFailure;
        private final ScheduledExecutorService scheduler;
        private final CompletableFuture<T> result;
        private int attempts;

        Run(
                Supplier<CompletableFuture<T>> attempt,
                Predicate<Throwable> retryable,
                BiFunction<Throwable, Integer, Throwable> onFailure,
                ScheduledExecutorService scheduler,
                CompletableFuture<T> result) {
            this.attempt = attempt;
            this.retryable = retryable;
            this.onFailure = onFailure;
            this.scheduler = scheduler;
            this.result = result;
        }

        void next() {
            if (result.isDone()) {
                return;
            }
            attempts++;
            CompletableFuture<T> f;
            try {
                f = Objects.requireNonNull(attempt.get(), "attempt returned null");
            } catch (Throwable t) {
                f = CompletableFuture.failedFuture(t);
            }
            var unused = f.whenComplete((value, error) -> { // completes the attempt's result future
                if (error == null) {
                    result.complete(value);
                } else {
                    failed(unwrap(error));
                }
            });
        }

        private void failed(Throwable error) {
            boolean again;
            try {
                again = attempts <= maxRetries && !result.isDone() && retryable.test(error);
            } catch (Throwable t) {
                error.addSuppressed(t);
                again = false;
            }
            if (!again) {
                giveUp(error);
                return;
            }
            long delay = delayBeforeRetry(attempts).toNanos();
            try {
                var unused = scheduler.schedule(this::next, delay, TimeUnit.NANOSECONDS); // next() completes result
            } catch (RejectedExecutionException e) {
                giveUp(error);
            }
        }

        private void giveUp(Throwable error) {
            Throwable mapped;
            try {
                mapped = onFailure.apply(error, attempts);
            } catch (Throwable t) {
                mapped = t;
            }
            result.completeExceptionally(mapped == null ? error : mapped);
        }
    }
}
