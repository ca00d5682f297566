package dev.lakestream.core.objectstore.s3;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;
import software.amazon.awssdk.core.async.AsyncResponseTransformer;
import software.amazon.awssdk.core.async.SdkPublisher;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;

/**
 * Collects a GetObject response body into one buffer of the response's Content-Length, allocated once and
 * filled in place: a heap array, or a buffer of the caller's allocator (pooled direct memory for the reader, so that
 * reads make no garbage at all).
 *
 * <p>Why not the SDK's {@code AsyncResponseTransformer.toBytes()}: it grows a {@code ByteArrayOutputStream}
 * and copies it out at the end, so reading a 1 MiB range made about 4 MiB of garbage, mostly arrays big enough
 * for G1 to allocate as humongous, and copied the bytes three times. Catch-up reads spent more time in GC
 * pauses than anywhere else. A body that runs past its Content-Length, or ends before it, fails the request
 * with a retryable {@link SdkClientException}, as a broken connection would. The buffer of a response that fails
 * or is superseded by a retry is released here; the buffer of the result belongs to whoever completes it.
 */
final class SizedResponseBody implements AsyncResponseTransformer<GetObjectResponse, SizedResponseBody.Result> {

    /** The response and its whole body; {@code buffer} holds one reference, handed over to the caller. */
    record Result(GetObjectResponse response, ByteBuf buffer) {

        /** The body as a byte buffer (over the same memory). */
        ByteBuffer body() {
            return buffer.nioBuffer();
        }
    }

    private final ByteBufAllocator allocator;
    private volatile CompletableFuture<Result> result;
    private volatile GetObjectResponse response;

    /** Collects into a heap array. */
    SizedResponseBody() {
        this(UnpooledByteBufAllocator.DEFAULT);
    }

    /** Collects into a direct buffer of {@code allocator}. */
    SizedResponseBody(ByteBufAllocator allocator) {
        this.allocator = allocator;
    }

    /** A collector of the same kind for one attempt of a request (each attempt collects afresh). */
    SizedResponseBody fresh() {
        return new SizedResponseBody(allocator);
    }

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
        publisher.subscribe(new Collector(response, result, allocator));
    }

    @Override
    public void exceptionOccurred(Throwable error) {
        result.completeExceptionally(error);
    }

    /** A transfer that broke off: retryable, like the I/O error a dropped connection gives. */
    static SdkClientException broken(String message) {
        return SdkClientException.builder()
                .message(message)
                .cause(new IOException(message))
                .build();
    }

    private static final class Collector implements Subscriber<ByteBuffer> {
        private final GetObjectResponse response;
        private final CompletableFuture<Result> result;
        private final long expected;
        private ByteBuf body;
        private Subscription subscription;

        Collector(GetObjectResponse response, CompletableFuture<Result> result, ByteBufAllocator allocator) {
            this.response = response;
            this.result = result;
            Long contentLength = response.contentLength();
            this.expected = contentLength == null ? -1 : contentLength;
            if (expected > Integer.MAX_VALUE - 8) {
                result.completeExceptionally(
                        SdkClientException.create("object body of " + expected + " bytes is too large for one array"));
                return;
            }
            boolean heap = allocator instanceof UnpooledByteBufAllocator;
            int initial = expected >= 0 ? (int) expected : 8192;
            int max = expected >= 0 ? (int) expected : Integer.MAX_VALUE - 8;
            this.body = heap ? allocator.heapBuffer(initial, max) : allocator.directBuffer(initial, max);
        }

        @Override
        public void onSubscribe(Subscription s) {
            subscription = s;
            if (result.isDone()) {
                s.cancel();
                releaseBody();
                return;
            }
            s.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(ByteBuffer chunk) {
            if (result.isDone() || body == null) {
                return;
            }
            int n = chunk.remaining();
            if (n > body.maxWritableBytes()) {
                subscription.cancel();
                releaseBody();
                result.completeExceptionally(
                        broken("object body ran past its Content-Length of " + expected + " bytes"));
                return;
            }
            body.writeBytes(chunk.duplicate());
        }

        @Override
        public void onError(Throwable error) {
            releaseBody();
            result.completeExceptionally(error);
        }

        @Override
        public void onComplete() {
            if (body == null) {
                return;
            }
            if (expected >= 0 && body.readableBytes() != expected) {
                int got = body.readableBytes();
                releaseBody();
                result.completeExceptionally(
                        broken("object body ended after " + got + " of its Content-Length of " + expected + " bytes"));
                return;
            }
            ByteBuf out = body;
            body = null;
            if (!result.complete(new Result(response, out))) {
                out.release();
            }
        }

        private void releaseBody() {
            ByteBuf b = body;
            body = null;
            if (b != null) {
                b.release();
            }
        }
    }
}
