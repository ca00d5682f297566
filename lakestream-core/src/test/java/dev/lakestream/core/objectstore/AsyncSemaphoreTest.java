package dev.lakestream.core.objectstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class AsyncSemaphoreTest {

    @Test
    void grantsUpToThePermitsThenQueuesInOrder() {
        AsyncSemaphore s = new AsyncSemaphore(2);
        CompletableFuture<Void> a = s.acquire();
        CompletableFuture<Void> b = s.acquire();
        CompletableFuture<Void> c = s.acquire();
        CompletableFuture<Void> d = s.acquire();
        assertThat(a).isDone();
        assertThat(b).isDone();
        assertThat(c).isNotDone();
        assertThat(d).isNotDone();
        assertThat(s.waiting()).isEqualTo(2);
        s.release();
        assertThat(c).isDone();
        assertThat(d).isNotDone();
        s.release();
        assertThat(d).isDone();
        s.release();
        s.release();
        assertThat(s.available()).isEqualTo(2);
        assertThatThrownBy(s::release).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aCancelledWaiterIsSkipped() {
        AsyncSemaphore s = new AsyncSemaphore(1);
        assertThat(s.acquire()).isCompleted();
        CompletableFuture<Void> cancelled = s.acquire();
        CompletableFuture<Void> next = s.acquire();
        cancelled.cancel(false);
        s.release();
        assertThat(next).isDone();
        assertThat(s.available()).isZero();
    }

    @Test
    void withPermitReleasesOnSuccessFailureAndThrow() {
        AsyncSemaphore s = new AsyncSemaphore(1);
        assertThat(s.withPermit(() -> CompletableFuture.completedFuture(1)).join())
                .isEqualTo(1);
        assertThat(s.withPermit(() -> CompletableFuture.failedFuture(new RuntimeException("x"))))
                .isCompletedExceptionally();
        assertThat(s.withPermit(() -> {
                    throw new IllegalStateException("thrown");
                }))
                .isCompletedExceptionally();
        assertThat(s.available()).isEqualTo(1);
    }

    @Test
    void neverMoreThanThePermitsRunAtOnce() throws Exception {
        AsyncSemaphore s = new AsyncSemaphore(3);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        AtomicInteger running = new AtomicInteger();
        AtomicInteger max = new AtomicInteger();
        try {
            List<CompletableFuture<Integer>> all = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                int n = i;
                all.add(s.withPermit(() -> {
                    max.accumulateAndGet(running.incrementAndGet(), Math::max);
                    return CompletableFuture.supplyAsync(
                            () -> {
                                running.decrementAndGet();
                                return n;
                            },
                            pool);
                }));
            }
            CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
            assertThat(max.get()).isBetween(1, 3);
            assertThat(s.available()).isEqualTo(3);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void closeFailsWaitersAndLaterAcquires() {
        AsyncSemaphore s = new AsyncSemaphore(1);
        assertThat(s.acquire()).isCompleted();
        CompletableFuture<Void> waiting = s.acquire();
        s.close(new IllegalStateException("closed"));
        assertThat(waiting).isCompletedExceptionally();
        assertThat(s.acquire()).isCompletedExceptionally();
    }
}
