package dev.lakestream.iceberg;

import dev.lakestream.core.config.ConfigReader;
import dev.lakestream.core.log.LogEntry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * A materializer's step waits for the stream through here, never without bound: a read (or a look at the stream's
 * ends) that does not complete within {@code lakestream.iceberg.readTimeout} fails the step, naming what it waited for,
 * and the materializer starts again from the table's offsets; a read that completes after that has its entries
 * released. Reads have their own store timeouts and retries far below the limit, so it ends only a wait that would
 * otherwise never end (a topic whose table stopped moving with nothing in the log, docs/iceberg.md).
 */
final class StreamWaits {

    private StreamWaits() {}

    /** The entries of {@code read}, waited for at most {@code limit}; {@code what} names the read in the error. */
    static List<LogEntry> entries(CompletableFuture<List<LogEntry>> read, Duration limit, Supplier<String> what) {
        return await(read, limit, what, late -> late.forEach(e -> e.payload().release()));
    }

    /** The value of {@code f} (a stream's end or start), waited for at most {@code limit}. */
    static <T> T value(CompletableFuture<T> f, Duration limit, Supplier<String> what) {
        return await(f, limit, what, late -> {});
    }

    private static <T> T await(
            CompletableFuture<T> f, Duration limit, Supplier<String> what, Consumer<? super T> lateResult) {
        try {
            return f.get(limit.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            var unused = f.thenAccept(lateResult);
            throw new StreamWaitTimeoutException(what.get() + " did not complete within " + ConfigReader.format(limit)
                    + " (lakestream.iceberg.readTimeout)");
        } catch (ExecutionException e) {
            throw new CompletionException(e.getCause()); // as join() throws it
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CompletionException(what.get() + " was interrupted", e);
        }
    }

    /** A wait for the stream that reached {@code lakestream.iceberg.readTimeout}. */
    static final class StreamWaitTimeoutException extends RuntimeException {
        StreamWaitTimeoutException(String message) {
            super(message);
        }
    }
}
