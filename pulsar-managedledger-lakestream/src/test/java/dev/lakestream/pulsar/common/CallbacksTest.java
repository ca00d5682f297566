package dev.lakestream.pulsar.common;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lakestream.core.log.StreamFencedException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.bookkeeper.mledger.ManagedLedgerException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class CallbacksTest {

    private static final String CALLBACK_THREAD = "callbacks-test-executor";

    private final ExecutorService executor = Executors.newSingleThreadExecutor(r -> new Thread(r, CALLBACK_THREAD));
    private final ExecutorService store = Executors.newSingleThreadExecutor(r -> new Thread(r, "callbacks-test-store"));

    /** What one delivery handed over, and on which thread. */
    private record Outcome(String value, ManagedLedgerException error, String thread) {}

    private final CompletableFuture<Outcome> outcome = new CompletableFuture<>();

    @AfterEach
    void stopThreads() {
        executor.shutdownNow();
        store.shutdownNow();
    }

    private void deliver(CompletableFuture<String> f) {
        Callbacks.deliver(
                f,
                executor,
                v -> outcome.complete(
                        new Outcome(v, null, Thread.currentThread().getName())),
                e -> outcome.complete(
                        new Outcome(null, e, Thread.currentThread().getName())));
    }

    private Outcome awaitOutcome() throws Exception {
        return outcome.get(10, TimeUnit.SECONDS);
    }

    @Test
    void theValueIsHandedOverOnTheExecutorNotOnTheThreadThatCompletedTheFuture() throws Exception {
        CompletableFuture<String> f = new CompletableFuture<>();
        deliver(f);
        store.execute(() -> f.complete("entry"));

        Outcome o = awaitOutcome();
        assertThat(o.value()).isEqualTo("entry");
        assertThat(o.error()).isNull();
        assertThat(o.thread()).isEqualTo(CALLBACK_THREAD);
    }

    @Test
    void anAlreadyCompletedFutureIsStillHandedOverOnTheExecutor() throws Exception {
        deliver(CompletableFuture.completedFuture("done"));

        Outcome o = awaitOutcome();
        assertThat(o.value()).isEqualTo("done");
        assertThat(o.thread()).isEqualTo(CALLBACK_THREAD);
    }

    @Test
    void aCoreFailureIsMappedToPulsarsExceptionOnTheExecutor() throws Exception {
        CompletableFuture<String> f = new CompletableFuture<>();
        deliver(f);
        StreamFencedException fenced = new StreamFencedException("stream 7 fenced by epoch 3");
        store.execute(() -> f.completeExceptionally(fenced));

        Outcome o = awaitOutcome();
        assertThat(o.value()).isNull();
        assertThat(o.thread()).isEqualTo(CALLBACK_THREAD);
        assertThat(o.error())
                .isInstanceOf(ManagedLedgerException.ManagedLedgerFencedException.class)
                .hasMessage("stream 7 fenced by epoch 3")
                .hasCause(fenced);
    }

    @Test
    void aCompletionExceptionIsUnwrappedToTheManagedLedgerExceptionItCarries() throws Exception {
        ManagedLedgerException cause = new ManagedLedgerException.ManagedLedgerNotFoundException("ledger t/1 is gone");
        // A dependent stage's failure arrives wrapped in a CompletionException.
        CompletableFuture<String> f =
                CompletableFuture.<String>failedFuture(cause).thenApply(v -> v + "!");
        deliver(f);

        Outcome o = awaitOutcome();
        assertThat(o.error()).isSameAs(cause);
        assertThat(o.thread()).isEqualTo(CALLBACK_THREAD);
    }

    @Test
    void anyOtherFailureBecomesAManagedLedgerExceptionCarryingIt() throws Exception {
        IllegalStateException boom = new IllegalStateException("object s3://bucket/k refused");
        deliver(CompletableFuture.failedFuture(new CompletionException(boom)));

        Outcome o = awaitOutcome();
        assertThat(o.error()).isExactlyInstanceOf(ManagedLedgerException.class).hasCause(boom);
    }
}
