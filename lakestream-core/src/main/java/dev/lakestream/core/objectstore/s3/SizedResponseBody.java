package dev.lakestream.core.objectstore.s3;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;
import software.amazon.awssdk.core.async.AsyncResponseTransformer;
import software.amazon.awssdk.core.async.SdkPublisher;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;

/**
 * Collects a GetObject response body into one array of the response's Content-Length, allocated once and
 * filled in place.
 *
 * <p>Why not the SDK's {@code AsyncResponseTransformer.toBytes()}: it grows a {@code ByteArrayOutputStream}
 * and copies it out at the end, so reading a 1 MiB range made about 4 MiB of garbage, mostly arrays big enough
 * for G1 to allocate as humongous, and copied the bytes three times. Catch-up reads spent more time in GC
 * pauses than anywhere else. A body that runs past its Content-Length, or ends before it, fails the request
 * with a retryable {@link SdkClientException}, as a broken connection would.
 */
final class SizedResponseBody implements AsyncResponseTransformer<GetObjectResponse, SizedResponseBody.Result> {

    /** The response and its whole body. */
    record Result(GetObjectResponse response, ByteBuffer body) {}

    private volatile CompletableFuture<Result> result;
    private volatile GetObjectResponse response;

    @Override
    public CompletableFuture<Result> prepare() {
        // Called again if the SDK retries the request: each attempt collects afresh.
        result = new CompletableFuture<>();
        return result;
    }

    @Override
    public void onResponse(GetObjectResponse response) {
        this.response = response;
    }

    @Override
    public void onStream(SdkPublisher<ByteBuffer> publisher) {
        publisher.subscribe(new Collector(response, result));
    }

    @Override
    public void exceptionOccurred(Throwable error) {
        result.completeExceptionally(error);
    }

    /** A transfer that broke off: retryable, like the I/O error a dropped connection gives. */
    static SdkClientException broken(String message) {
        return SdkClientException.builder().message(message).cause(new IOException(message)).build();
    }

    private static final class Collector implements Subscriber<ByteBuffer> {
        private final GetObjectResponse response;
        private final CompletableFuture<Result> result;
        private final long expected;
        private byte[] body;
        private int length;
        private Subscription subscription;

        Collector(GetObjectResponse response, CompletableFuture<Result> result) {
            this.response = response;
            this.result = result;
            Long contentLength = response.contentLength();
            this.expected = contentLength == null ? -1 : contentLength;
            if (expected > Integer.MAX_VALUE - 8) {
                result.completeExceptionally(SdkClientException.create("object body of " + expected
                        + " bytes is too large for one array"));
            }
            this.body = new byte[expected >= 0 && expected <= Integer.MAX_VALUE - 8 ? (int) expected : 8192];
        }

        @Override
        public void onSubscribe(Subscription s) {
            subscription = s;
            if (result.isDone()) {
                s.cancel();
                return;
            }
            s.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(ByteBuffer chunk) {
            if (result.isDone()) {
                return;
            }
            int n = chunk.remaining();
            if (length + (long) n > body.length) {
                if (expected >= 0) {
                    subscription.cancel();
                    result.completeExceptionally(broken("object body ran past its Content-Length of " + expected
                            + " bytes"));
                    return;
                }
                // No Content-Length: grow geometrically.
                body = Arrays.copyOf(body, (int) Math.min(Integer.MAX_VALUE - 8,
                        Math.max(length + (long) n, 2L * body.length)));
            }
            chunk.duplicate().get(body, length, n);
            length += n;
        }

        @Override
        public void onError(Throwable error) {
            result.completeExceptionally(error);
        }

        @Override
        public void onComplete() {
            if (expected >= 0 && length != expected) {
                result.completeExceptionally(broken("object body ended after " + length + " of its Content-Length of "
                        + expected + " bytes"));
                return;
            }
            result.complete(new Result(response, ByteBuffer.wrap(body, 0, length).slice()));
        }
    }
}
