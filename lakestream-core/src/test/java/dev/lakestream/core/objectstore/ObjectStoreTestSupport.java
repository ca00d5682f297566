package dev.lakestream.core.objectstore;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Small helpers for object-store tests: waiting on futures and asserting their failures. */
public final class ObjectStoreTestSupport {

    private ObjectStoreTestSupport() {}

    /** Waits (30 s at most) for {@code f} and returns its value; a failure fails the test. */
    public static <T> T await(CompletableFuture<T> f) {
        try {
            return f.get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new AssertionError("failed: " + e.getCause(), e.getCause());
        } catch (InterruptedException | TimeoutException e) {
            throw new AssertionError(e);
        }
    }

    /** Waits (30 s at most) for {@code f} to fail and returns the cause, asserting its type. */
    public static <E extends Throwable> E failure(CompletableFuture<?> f, Class<E> type) {
        try {
            Object v = f.get(30, TimeUnit.SECONDS);
            throw new AssertionError("expected " + type.getSimpleName() + " but got " + v);
        } catch (ExecutionException e) {
            Throwable cause = RetryPolicy.unwrap(e);
            assertThat(cause).isInstanceOf(type);
            return type.cast(cause);
        } catch (InterruptedException | TimeoutException e) {
            throw new AssertionError(e);
        }
    }

    public static ByteBuffer utf8(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    public static String string(ByteBuffer b) {
        return StandardCharsets.UTF_8.decode(b.duplicate()).toString();
    }
}
