package dev.lakestream.pulsar.common;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import org.apache.bookkeeper.mledger.ManagedLedgerException;

/**
 * The one adapter from a future to one of Pulsar's callback pairs ({@code xxxComplete} / {@code xxxFailed}).
 *
 * <p>The outcome is handed over on the given executor, never on the thread that completed the future: that thread
 * is often a store's I/O thread, and a broker callback may block or take the broker's locks.
 */
public final class Callbacks {

    private Callbacks() {}

    /**
     * Runs {@code onSuccess} with the value, or {@code onFailure} with the error as a {@link ManagedLedgerException}
     * (mapped by {@link Errors#toMl}, which unwraps {@code CompletionException}s), on {@code executor}.
     */
    public static <T> void deliver(
            CompletableFuture<T> f,
            Executor executor,
            Consumer<? super T> onSuccess,
            Consumer<? super ManagedLedgerException> onFailure) {
        // the callback reports both outcomes to the caller's callback.
        var unused = f.whenCompleteAsync(
                (v, e) -> {
                    if (e != null) {
                        onFailure.accept(Errors.toMl(e));
                    } else {
                        onSuccess.accept(v);
                    }
                },
                executor);
    }
}
