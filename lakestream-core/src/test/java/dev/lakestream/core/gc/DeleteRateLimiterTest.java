package dev.lakestream.core.gc;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The limiter's bookkeeping on a clock the test moves (its waits are far longer than the test could take). */
class DeleteRateLimiterTest {

    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    private final AtomicLong now = new AtomicLong(1_000_000_000L);

    @AfterEach
    void stop() {
        scheduler.shutdownNow();
    }

    @Test
    void eachAdmissionWaitsForTheTimeThePreviousOnesReserved() {
        DeleteRateLimiter limiter = new DeleteRateLimiter(1, scheduler, now::get); // 1 object per second

        CompletableFuture<Void> first = limiter.acquire(1000); // reserves 1000 s from now
        CompletableFuture<Void> second = limiter.acquire(1);
        assertThat(first).isCompleted();
        assertThat(second).isNotDone();

        // Once the reserved time has passed (and the reservation with it), admissions are immediate again.
        now.addAndGet(2_000_000_000_000L);
        assertThat(limiter.acquire(1)).isCompleted();

        limiter.close();
        assertThat(second).isCompletedExceptionally();
        assertThat(second.handle((v, e) -> e).join()).isInstanceOf(CancellationException.class);
        assertThat(limiter.acquire(1)).isCompletedExceptionally();
    }
}
