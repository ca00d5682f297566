package dev.lakestream.core.objectstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RetryPolicyTest {

    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();

    @AfterEach
    void stop() {
        scheduler.shutdownNow();
    }

    @Test
    void backoffCeilingDoublesUpToTheMaximum() {
        RetryPolicy p = new RetryPolicy(10, Duration.ofMillis(100), Duration.ofSeconds(5));
        assertThat(p.backoffCeiling(1)).isEqualTo(Duration.ofMillis(100));
        assertThat(p.backoffCeiling(2)).isEqualTo(Duration.ofMillis(200));
        assertThat(p.backoffCeiling(3)).isEqualTo(Duration.ofMillis(400));
        assertThat(p.backoffCeiling(6)).isEqualTo(Duration.ofMillis(3200));
        assertThat(p.backoffCeiling(7)).isEqualTo(Duration.ofSeconds(5));
        assertThat(p.backoffCeiling(100)).isEqualTo(Duration.ofSeconds(5));
        assertThat(p.backoffCeiling(Integer.MAX_VALUE)).isEqualTo(Duration.ofSeconds(5));
        assertThatThrownBy(() -> p.backoffCeiling(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void fullJitterSpansZeroToTheCeiling() {
        double[] next = {0.0};
        RetryPolicy p = new RetryPolicy(5, Duration.ofMillis(100), Duration.ofSeconds(5), () -> next[0]);
        assertThat(p.delayBeforeRetry(3)).isEqualTo(Duration.ZERO);
        next[0] = 0.5;
        assertThat(p.delayBeforeRetry(3)).isEqualTo(Duration.ofMillis(200));
        next[0] = 0.999999;
        assertThat(p.delayBeforeRetry(3)).isBetween(Duration.ofMillis(399), Duration.ofMillis(400));
        RetryPolicy random = new RetryPolicy(5, Duration.ofMillis(100), Duration.ofSeconds(5));
        for (int i = 0; i < 1000; i++) {
            assertThat(random.delayBeforeRetry(2)).isBetween(Duration.ZERO, Duration.ofMillis(200));
        }
    }

    @Test
    void invalidSettingsAreRefused() {
        assertThatThrownBy(() -> new RetryPolicy(-1, Duration.ZERO, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RetryPolicy(1, Duration.ofSeconds(2), Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void retriesRetryableFailuresUntilSuccess() throws Exception {
        RetryPolicy p = new RetryPolicy(5, Duration.ofMillis(1), Duration.ofMillis(5));
        AtomicInteger attempts = new AtomicInteger();
        CompletableFuture<String> result = p.run(
                () -> attempts.incrementAndGet() < 3
                        ? CompletableFuture.failedFuture(new IOException("flaky"))
                        : CompletableFuture.completedFuture("ok"),
                e -> e instanceof IOException,
                (e, n) -> new AssertionError("gave up"),
                scheduler);
        assertThat(result.get(5, TimeUnit.SECONDS)).isEqualTo("ok");
        assertThat(attempts).hasValue(3);
    }

    @Test
    void givesUpAfterMaxRetriesWithTheAttemptCount() {
        RetryPolicy p = new RetryPolicy(3, Duration.ofMillis(1), Duration.ofMillis(5));
        AtomicInteger attempts = new AtomicInteger();
        List<Integer> reported = new ArrayList<>();
        CompletableFuture<String> result = p.run(
                () -> {
                    attempts.incrementAndGet();
                    return CompletableFuture.failedFuture(new IOException("down"));
                },
                e -> true,
                (e, n) -> {
                    reported.add(n);
                    return new IllegalStateException("gave up after " + n + ": " + e.getMessage());
                },
                scheduler);
        assertThatThrownBy(() -> result.get(5, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("gave up after 4: down");
        assertThat(attempts).hasValue(4);
        assertThat(reported).containsExactly(4);
    }

    @Test
    void aNonRetryableFailureEndsAtOnce() {
        RetryPolicy p = new RetryPolicy(5, Duration.ofMillis(1), Duration.ofMillis(5));
        AtomicInteger attempts = new AtomicInteger();
        CompletableFuture<String> result = p.run(
                () -> {
                    attempts.incrementAndGet();
                    return CompletableFuture.failedFuture(new IllegalArgumentException("bad request"));
                },
                e -> e instanceof IOException,
                (e, n) -> e,
                scheduler);
        assertThatThrownBy(() -> result.get(5, TimeUnit.SECONDS)).cause().isInstanceOf(IllegalArgumentException.class);
        assertThat(attempts).hasValue(1);
    }

    @Test
    void anAttemptThatThrowsCountsAsAFailure() throws Exception {
        RetryPolicy p = new RetryPolicy(2, Duration.ofMillis(1), Duration.ofMillis(5));
        AtomicInteger attempts = new AtomicInteger();
        CompletableFuture<String> result = p.run(
                () -> {
                    if (attempts.incrementAndGet() == 1) {
                        throw new java.io.UncheckedIOException(new IOException("thrown"));
                    }
                    return CompletableFuture.completedFuture("second");
                },
                e -> e instanceof java.io.UncheckedIOException,
                (e, n) -> e,
                scheduler);
        assertThat(result.get(5, TimeUnit.SECONDS)).isEqualTo("second");
    }

    @Test
    void waitsAreScheduledNotSlept() throws Exception {
        // A 1 s wait is scheduled; the thread that failed the attempt returns at once.
        RetryPolicy p = new RetryPolicy(1, Duration.ofSeconds(1), Duration.ofSeconds(1), () -> 1.0);
        CompletableFuture<String> first = new CompletableFuture<>();
        AtomicInteger attempts = new AtomicInteger();
        CompletableFuture<String> result = p.run(
                () -> attempts.incrementAndGet() == 1 ? first : CompletableFuture.completedFuture("late"),
                e -> true,
                (e, n) -> e,
                scheduler);
        long start = System.nanoTime();
        first.completeExceptionally(new IOException("fail"));
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(500));
        assertThat(result).isNotDone();
        assertThat(result.get(5, TimeUnit.SECONDS)).isEqualTo("late");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(900));
    }

    @Test
    void aSchedulerThatRefusesEndsTheOperationWithTheLastFailure() {
        // Fault injection: the scheduler has been shut down.
        ScheduledExecutorService refusing = mock(ScheduledExecutorService.class);
        when(refusing.schedule(any(Runnable.class), anyLong(), any())).thenThrow(new RejectedExecutionException());
        RetryPolicy p = new RetryPolicy(5, Duration.ofMillis(1), Duration.ofMillis(5));
        CompletableFuture<String> result = p.run(
                () -> CompletableFuture.failedFuture(new IOException("down")),
                e -> true,
                (e, n) -> new IllegalStateException(n + " " + e.getMessage()),
                refusing);
        assertThatThrownBy(() -> result.get(5, TimeUnit.SECONDS)).cause().hasMessage("1 down");
    }

    @Test
    void cancellingStopsFurtherAttempts() throws Exception {
        RetryPolicy p = new RetryPolicy(100, Duration.ofMillis(20), Duration.ofMillis(20));
        AtomicInteger attempts = new AtomicInteger();
        CompletableFuture<String> result = p.run(
                () -> {
                    attempts.incrementAndGet();
                    return CompletableFuture.failedFuture(new IOException("down"));
                },
                e -> true,
                (e, n) -> e,
                scheduler);
        result.cancel(false);
        int seen = attempts.get();
        // Two scheduler round trips later no attempt has started.
        scheduler.schedule(() -> {}, 50, TimeUnit.MILLISECONDS).get();
        scheduler.schedule(() -> {}, 50, TimeUnit.MILLISECONDS).get();
        assertThat(attempts.get()).isLessThanOrEqualTo(seen + 1);
    }
}
