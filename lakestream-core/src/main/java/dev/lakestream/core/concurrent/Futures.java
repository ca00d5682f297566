package dev.lakestream.core.concurrent;

import java.util.Objects;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import org.slf4j.Logger;

/** Helpers for futures: unwrapping their failures, and ending chains nobody waits for. */
public final class Futures {

    private Futures() {}

    /** The failure under the {@link CompletionException} wrappers a future's stages add. */
    public static Throwable unwrap(Throwable e) {
        while (e instanceof CompletionException && e.getCause() != null) {
            e = e.getCause();
        }
        return e;
    }

    /**
     * Logs a warning if {@code future} fails. For the end of a fire-and-forget chain (a {@code whenComplete} or
     * {@code thenAccept} nobody joins), so that an exception thrown by one of its callbacks is seen, not lost.
     */
    @SuppressWarnings("FutureReturnValueIgnored") // this logging stage is the end of the chain
    public static void logFailure(CompletionStage<?> future, Logger log, String what) {
        Objects.requireNonNull(log, "log");
        Objects.requireNonNull(what, "what");
        future.whenComplete((v, e) -> {
            if (e != null) {
                log.warn("{} failed", what, e);
            }
        });
    }
}
