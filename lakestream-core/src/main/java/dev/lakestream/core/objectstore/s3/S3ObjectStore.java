package dev.lakestream.core.objectstore.s3;

import dev.lakestream.core.concurrent.DaemonThreads;
import dev.lakestream.core.objectstore.AsyncSemaphore;
import dev.lakestream.core.objectstore.BucketNotFoundException;
import dev.lakestream.core.objectstore.InvalidObjectKeyException;
import dev.lakestream.core.objectstore.InvalidRangeException;
import dev.lakestream.core.objectstore.ObjectAlreadyExistsException;
import dev.lakestream.core.objectstore.ObjectBody;
import dev.lakestream.core.objectstore.ObjectCorruptedException;
import dev.lakestream.core.objectstore.ObjectInfo;
import dev.lakestream.core.objectstore.ObjectKeys;
import dev.lakestream.core.objectstore.ObjectListing;
import dev.lakestream.core.objectstore.ObjectNotFoundException;
import dev.lakestream.core.objectstore.ObjectStore;
import dev.lakestream.core.objectstore.ObjectStoreAccessDeniedException;
import dev.lakestream.core.objectstore.ObjectStoreException;
import dev.lakestream.core.objectstore.ObjectStoreLifecycle;
import dev.lakestream.core.objectstore.ObjectStoreUnavailableException;
import dev.lakestream.core.objectstore.ObjectStream;
import dev.lakestream.core.objectstore.ObjectUpload;
import dev.lakestream.core.objectstore.PartUpload;
import dev.lakestream.core.objectstore.RetryPolicy;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.async.AsyncRequestBody;
import software.amazon.awssdk.core.async.AsyncResponseTransformer;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.http.async.SdkAsyncHttpClient;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.http.nio.netty.SdkEventLoopGroup;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.model.ChecksumAlgorithm;
import software.amazon.awssdk.services.s3.model.ChecksumMode;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.DeleteObjectsResponse;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.S3Error;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * An {@link ObjectStore} on S3 or an S3-compatible store, with the AWS SDK v2 asynchronous client on Netty.
 *
 * <h2>Keys</h2>
 * Key {@code k} is stored as {@code prefix + "/" + k} (or {@code k} without a prefix). Keys follow
 * {@link ObjectKeys}; the physical key must fit S3's 1024 bytes. Invalid keys fail before any request.
 *
 * <h2>Integrity</h2>
 * Every put sends the CRC32C of the body in {@code x-amz-checksum-crc32c}: the store checks it on receipt
 * and rejects a body that does not match (reported as {@link ObjectCorruptedException}); it also keeps it as
 * the object's checksum. The same value is stored in the user metadata {@code x-amz-meta-lakestream-crc32c}.
 * A whole-object get asks for the stored checksum ({@code x-amz-checksum-mode: ENABLED}), which the SDK
 * verifies, and then checks the bytes against the metadata value itself, so stores that keep no checksum
 * are verified too. A mismatch fails with {@link ObjectCorruptedException} naming bucket and key, and is
 * not retried. <b>Ranged gets are not verified:</b> S3's checksum covers the whole object.
 *
 * <h2>Conditional create</h2>
 * {@link #putIfAbsent} is a PutObject with {@code If-None-Match: *}; 412 Precondition Failed (and 409
 * ConditionalRequestConflict) fail with {@link ObjectAlreadyExistsException}. When an earlier attempt of
 * the same call timed out, that attempt may be the one that created the object: the message then gives the
 * number of attempts.
 *
 * <h2>Retries and limits</h2>
 * The SDK's own retries are off; {@link RetryPolicy} retries 500, 502, 503, 504, 429 and the S3 throttling
 * and transient error codes ({@code SlowDown}, {@code InternalError}, {@code RequestTimeout}, ...),
 * timeouts and connection failures, up to {@code maxRetries} times with exponential backoff and full jitter,
 * scheduled on a timer thread (no thread sleeps). Each attempt is limited to {@code requestTimeout}. Other
 * errors (400, 403, 404, 412, 416) fail at once. Retryable errors that outlast the retries fail with
 * {@link ObjectStoreUnavailableException} naming the endpoint. At most {@code maxConcurrentRequests}
 * attempts are in flight; further ones wait in a FIFO queue without blocking a thread (the Netty pool allows
 * twice as many connections, so a timed-out attempt still being torn down never starves the next one).
 *
 * <h2>Errors</h2>
 * NoSuchBucket → {@link BucketNotFoundException}; NoSuchKey / 404 → {@link ObjectNotFoundException};
 * 403 (AccessDenied, InvalidAccessKeyId, SignatureDoesNotMatch) → {@link ObjectStoreAccessDeniedException};
 * 416 → {@link InvalidRangeException}. {@link #head} answers empty on 404 — a HEAD response has no error
 * code, so a missing bucket also reads as a missing object there.
 *
 * <p>Futures complete on the SDK's response threads or the store's timer thread: chain heavy work with the
 * {@code *Async} methods. Objects are written with a single PutObject, so at most 5 GiB each.
 *
 * <h2>Uploads</h2>
 * {@link #newUpload} streams an object in parts of {@value #UPLOAD_PART_BYTES} bytes: a multipart upload
 * (CreateMultipartUpload when the first part is full, UploadPart one part at a time, CompleteMultipartUpload), each
 * request retried and limited as above, each part sent with its CRC32C (checked by the store on receipt). The object
 * is invisible until the completion; a failed or aborted upload is aborted (AbortMultipartUpload), so no parts are
 * left billed. An upload that never fills a part is one PutObject, as {@link #put}. A multipart object carries S3's
 * checksum of its parts' checksums, not the whole-object {@code lakestream-crc32c} metadata (unknown when the upload
 * starts), so a whole get of it is not checked against one; segments are read by ranges and checked by their own
 * page checksums anyway.
 */
public final class S3ObjectStore implements ObjectStore {

    private static final Logger LOG = LoggerFactory.getLogger(S3ObjectStore.class);

    /** A put body of more parts than this is sent from a few staging buffers (see {@link #stage}). */
    static final int MAX_BODY_PARTS = 64;
    /** Size of those staging buffers. */
    static final int STAGING_BYTES = 512 << 10;

    /** The user-metadata name (without {@code x-amz-meta-}) of the Base64 CRC32C of the object. */
    public static final String CRC32C_METADATA = "lakestream-crc32c";

    /** The part size of {@link #newUpload}: above S3's 5 MiB minimum; 10,000 parts (S3's limit) make 80 GiB. */
    public static final int UPLOAD_PART_BYTES = 8 << 20;

    /** S3's limit on keys per DeleteObjects. */
    public static final int MAX_DELETE_BATCH = 1000;

    private static final Set<Integer> RETRYABLE_STATUS = Set.of(500, 502, 503, 504, 429);
    private static final Set<String> RETRYABLE_CODES = Set.of(
            "SlowDown",
            "Throttling",
            "ThrottlingException",
            "RequestThrottled",
            "RequestLimitExceeded",
            "TooManyRequestsException",
            "InternalError",
            "ServiceUnavailable",
            "RequestTimeout",
            "RequestTimeoutException",
            "BandwidthLimitExceeded",
            "EC2ThrottledException",
            "PriorRequestNotComplete",
            "TransactionInProgress");
    private static final Set<String> ACCESS_DENIED_CODES = Set.of(
            "AccessDenied",
            "InvalidAccessKeyId",
            "SignatureDoesNotMatch",
            "InvalidToken",
            "ExpiredToken",
            "AllAccessDisabled",
            "InvalidSecurity",
            "AccountProblem");
    private static final Set<String> BAD_DIGEST_CODES = Set.of(
            "BadDigest",
            "InvalidDigest",
            "XAmzContentChecksumMismatch",
            "XAmzContentSHA256Mismatch",
            "InvalidChecksum");

    private final S3ObjectStoreConfig config;
    private final String bucket;
    private final String keyPrefix;
    private final String endpoint;
    private final String location;
    private final SdkEventLoopGroup eventLoops;
    private final SdkAsyncHttpClient httpClient;
    private final S3AsyncClient s3;
    private final RetryPolicy retryPolicy;
    private final AsyncSemaphore limiter;
    /** Places for open streams ({@link #openStream}), each holding a connection. */
    private final Semaphore streams;
    /** A stream not read from for this long is closed. */
    private final Duration streamIdle;
    /** The streams open now, closed with the store. */
    private final Set<S3ObjectStream> openStreams = ConcurrentHashMap.newKeySet();

    private final ScheduledThreadPoolExecutor timer;
    private final ObjectStoreLifecycle lifecycle;

    public S3ObjectStore(S3ObjectStoreConfig config) {
        this.config = config;
        this.bucket = config.bucket();
        this.keyPrefix = config.prefix().isEmpty() ? "" : config.prefix() + "/";
        this.endpoint = config.endpoint() != null
                ? config.endpoint().toString()
                : "https://s3." + config.region() + ".amazonaws.com";
        this.location = config.bucketUri() + " at " + endpoint;
        this.lifecycle = new ObjectStoreLifecycle("S3 object store " + location);
        this.retryPolicy = new RetryPolicy(config.maxRetries(), config.retryBaseDelay(), config.retryMaxDelay());
        this.limiter = new AsyncSemaphore(config.maxConcurrentRequests());
        this.streams = new Semaphore(Math.max(1, config.maxConcurrentRequests() / 4));

        Duration timeout = config.requestTimeout();
        // Below the read timeout: a stream is closed by us, not by its connection timing out.
        this.streamIdle = min(Duration.ofSeconds(10), timeout.dividedBy(2));
        // Our own event loop group, of one thread:
        // - with more than one, the SDK's Netty client (2.57.8; with Netty 4.1.138 as with 4.2.18) now and
        //   then loses the failure of a refused connection, and the attempt hangs until its timeout;
        // - the SDK's own group is shut down with a 2 s quiet period on close.
        // One event loop moves far more bytes than maxConcurrentRequests requests need.
        this.eventLoops = SdkEventLoopGroup.builder()
                .numberOfThreads(1)
                .threadFactory(DaemonThreads.named("lakestream-s3-io-" + bucket))
                .build();
        var http = NettyNioAsyncHttpClient.builder()
                .eventLoopGroup(eventLoops)
                .maxConcurrency(Math.max(2 * config.maxConcurrentRequests(), config.maxConcurrentRequests() + 2))
                .connectionTimeout(min(timeout, Duration.ofSeconds(10)))
                .connectionAcquisitionTimeout(timeout)
                .readTimeout(timeout)
                .writeTimeout(timeout);
        javax.net.ssl.TrustManager[] trust = config.trustManagers();
        if (trust != null) {
            http.tlsTrustManagersProvider(() -> trust);
        }
        this.httpClient = http.build();
        AwsCredentialsProvider credentials = config.accessKeyId() != null
                ? StaticCredentialsProvider.create(
                        AwsBasicCredentials.create(config.accessKeyId(), config.secretAccessKey()))
                : DefaultCredentialsProvider.builder().build();
        var builder = S3AsyncClient.builder()
                .httpClient(httpClient)
                .region(Region.of(config.region()))
                .forcePathStyle(config.pathStyleAccess())
                .credentialsProvider(credentials)
                // We send and ask for checksums explicitly (see the class comment).
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                .overrideConfiguration(o -> o.retryStrategy(AwsRetryStrategy.doNotRetry())
                        .apiCallAttemptTimeout(timeout)
                        .apiCallTimeout(timeout));
        if (config.endpoint() != null) {
            builder.endpointOverride(config.endpoint());
        }
        S3AsyncClient client;
        try {
            client = builder.build();
        } catch (RuntimeException e) {
            httpClient.close();
            var unused = eventLoops.eventLoopGroup().shutdownGracefully(0, 1, TimeUnit.SECONDS); // not awaited
            throw e;
        }
        this.s3 = client;
        this.timer = new ScheduledThreadPoolExecutor(1, DaemonThreads.named("lakestream-s3-retry-" + bucket));
        this.timer.setRemoveOnCancelPolicy(true);
        LOG.info(
                "Opened S3 object store {} (region {}, pathStyle {}, requestTimeout {}, maxRetries {}, "
                        + "maxConcurrentRequests {})",
                location,
                config.region(),
                config.pathStyleAccess(),
                timeout,
                config.maxRetries(),
                config.maxConcurrentRequests());
    }

    public S3ObjectStoreConfig config() {
        return config;
    }

    @Override
    public String location() {
        return location;
    }

    @Override
    public CompletableFuture<Void> put(String key, ByteBuffer data) {
        return write("put", key, data, false);
    }

    @Override
    public CompletableFuture<Void> putIfAbsent(String key, ByteBuffer data) {
        return write("putIfAbsent", key, data, true);
    }

    @Override
    public ObjectUpload newUpload(String key) {
        return new MultipartUpload(key);
    }

    @Override
    public CompletableFuture<Void> put(String key, ObjectBody body) {
        return write("put", key, body, false);
    }

    private CompletableFuture<Void> write(String op, String key, ByteBuffer data, boolean ifAbsent) {
        return write(op, key, ObjectBody.of(data.asReadOnlyBuffer().slice()), ifAbsent);
    }

    private CompletableFuture<Void> write(String op, String key, ObjectBody body, boolean ifAbsent) {
        String physical;
        try {
            physical = physicalKey(key);
        } catch (InvalidObjectKeyException e) {
            return CompletableFuture.failedFuture(e);
        }
        String crc = ObjectKeys.crc32cBase64(body.crc32c());
        long length = body.length();
        ByteBuf staged = body.parts().length > MAX_BODY_PARTS ? stage(body) : null;
        ByteBuffer[] parts = staged == null ? body.parts() : staged.nioBuffers();
        // Each attempt sends the parts afresh (new read-only views, so a retry starts from their first byte).
        CompletableFuture<Void> put = execute(
                        op,
                        key,
                        () -> s3.putObject(
                                r -> {
                                    r.bucket(bucket)
                                            .key(physical)
                                            .contentLength(length)
                                            .contentType("application/octet-stream")
                                            .checksumAlgorithm(ChecksumAlgorithm.CRC32_C)
                                            .checksumCRC32C(crc)
                                            .metadata(Map.of(CRC32C_METADATA, crc));
                                    if (ifAbsent) {
                                        r.ifNoneMatch("*");
                                    }
                                },
                                parts.length == 1
                                        ? AsyncRequestBody.fromByteBufferUnsafe(parts[0].asReadOnlyBuffer())
                                        : AsyncRequestBody.fromByteBuffersUnsafe(readOnly(parts))))
                .thenApply(r -> null);
        if (staged != null) {
            var unused = put.whenComplete((v, e) -> staged.release()); // the caller gets put, which fails alike
        }
        return put;
    }

    /**
     * A body of many small parts (a WAL object of thousands of entries) copied into a few pooled direct buffers: the
     * HTTP client writes each part it is given on its own, so thousands of small writes cost more than one copy in
     * direct memory (which makes no garbage). Released when the put completes.
     */
    private static ByteBuf stage(ObjectBody body) {
        int length = Math.toIntExact(body.length());
        CompositeByteBuf staged =
                PooledByteBufAllocator.DEFAULT.compositeDirectBuffer(Math.max(2, length / STAGING_BYTES + 1));
        try {
            ByteBuf current = null;
            for (ByteBuffer part : body.parts()) {
                ByteBuffer p = part.duplicate();
                while (p.hasRemaining()) {
                    if (current == null || !current.isWritable()) {
                        int size = Math.min(
                                STAGING_BYTES,
                                length - staged.writerIndex() - (current == null ? 0 : current.readableBytes()));
                        if (current != null) {
                            staged.addComponent(true, current);
                        }
                        current = PooledByteBufAllocator.DEFAULT.directBuffer(size, size);
                    }
                    int n = Math.min(p.remaining(), current.writableBytes());
                    ByteBuffer slice = p.slice(p.position(), n);
                    current.writeBytes(slice);
                    p.position(p.position() + n);
                }
            }
            if (current != null) {
                staged.addComponent(true, current);
            }
            return staged;
        } catch (RuntimeException e) {
            staged.release();
            throw e;
        }
    }

    private static ByteBuffer[] readOnly(ByteBuffer[] parts) {
        ByteBuffer[] out = new ByteBuffer[parts.length];
        for (int i = 0; i < parts.length; i++) {
            out[i] = parts[i].asReadOnlyBuffer();
        }
        return out;
    }

    /** A multipart upload, created with its first full part; parts sent one at a time (see the class comment). */
    private final class MultipartUpload extends PartUpload {

        private final List<CompletedPart> parts = new ArrayList<>();
        /** Set once CreateMultipartUpload answered; read by later hooks, which run after it (see PartUpload). */
        private volatile String uploadId;

        MultipartUpload(String key) {
            super(key, UPLOAD_PART_BYTES);
        }

        @Override
        protected CompletableFuture<Void> sendPart(int number, ByteBuffer part) {
            String physical;
            try {
                physical = physicalKey(key());
            } catch (InvalidObjectKeyException e) {
                return CompletableFuture.failedFuture(e);
            }
            CompletableFuture<String> created = uploadId != null
                    ? CompletableFuture.completedFuture(uploadId)
                    : execute(
                                    "create multipart upload of",
                                    key(),
                                    () -> s3.createMultipartUpload(r -> r.bucket(bucket)
                                            .key(physical)
                                            .contentType("application/octet-stream")
                                            .checksumAlgorithm(ChecksumAlgorithm.CRC32_C)))
                            .thenApply(resp -> {
                                uploadId = resp.uploadId();
                                return uploadId;
                            });
            String crc = ObjectKeys.crc32cBase64(ObjectKeys.crc32c(part.duplicate()));
            long length = part.remaining();
            return created.thenCompose(id -> execute(
                            "upload part " + number + " of",
                            key(),
                            () -> s3.uploadPart(
                                    r -> r.bucket(bucket)
                                            .key(physical)
                                            .uploadId(id)
                                            .partNumber(number)
                                            .contentLength(length)
                                            .checksumAlgorithm(ChecksumAlgorithm.CRC32_C)
                                            .checksumCRC32C(crc),
                                    AsyncRequestBody.fromByteBufferUnsafe(part.asReadOnlyBuffer()))))
                    .thenAccept(resp -> {
                        synchronized (parts) {
                            parts.add(CompletedPart.builder()
                                    .partNumber(number)
                                    .eTag(resp.eTag())
                                    .checksumCRC32C(crc)
                                    .build());
                        }
                    });
        }

        @Override
        protected CompletableFuture<Void> commit(int count) {
            List<CompletedPart> done;
            synchronized (parts) {
                done = List.copyOf(parts);
            }
            if (done.size() != count) {
                return CompletableFuture.failedFuture(new ObjectStoreException("upload of "
                        + ObjectKeys.printable(key()) + " in " + location + " has " + done.size() + " of its " + count
                        + " parts stored"));
            }
            String physical = keyPrefix + key();
            return execute(
                            "complete multipart upload (" + count + " parts) of",
                            key(),
                            () -> s3.completeMultipartUpload(r -> r.bucket(bucket)
                                    .key(physical)
                                    .uploadId(uploadId)
                                    .multipartUpload(m -> m.parts(done))))
                    .thenApply(resp -> null);
        }

        @Override
        protected CompletableFuture<Void> putWhole(ByteBuffer bytes) {
            return put(key(), bytes);
        }

        @Override
        protected CompletableFuture<Void> discard() {
            String id = uploadId;
            if (id == null) {
                return CompletableFuture.completedFuture(null);
            }
            String physical = keyPrefix + key();
            return execute(
                            "abort multipart upload of",
                            key(),
                            () -> s3.abortMultipartUpload(
                                    r -> r.bucket(bucket).key(physical).uploadId(id)))
                    .<Void>thenApply(resp -> null)
                    // Gone already (aborted by an earlier attempt that timed out): what an abort wants.
                    .exceptionallyCompose(e -> RetryPolicy.unwrap(e) instanceof ObjectNotFoundException
                            ? CompletableFuture.completedFuture(null)
                            : CompletableFuture.failedFuture(e));
        }
    }

    @Override
    public CompletableFuture<ByteBuffer> get(String key) {
        return getWhole(key, new SizedResponseBody()).thenApply(ByteBuf::nioBuffer);
    }

    @Override
    public CompletableFuture<ByteBuf> get(String key, ByteBufAllocator allocator) {
        return getWhole(key, new SizedResponseBody(allocator));
    }

    private CompletableFuture<ByteBuf> getWhole(String key, SizedResponseBody collector) {
        String physical;
        try {
            physical = physicalKey(key);
        } catch (InvalidObjectKeyException e) {
            return CompletableFuture.failedFuture(e);
        }
        return execute(
                "get",
                key,
                () -> s3.getObject(
                                r -> r.bucket(bucket).key(physical).checksumMode(ChecksumMode.ENABLED),
                                collector.fresh())
                        .thenApply(bytes -> verified(key, bytes)));
    }

    /** The body, once its CRC32C matches the one written with it; released when it does not. */
    private ByteBuf verified(String key, SizedResponseBody.Result bytes) {
        ByteBuf data = bytes.buffer();
        String expected = bytes.response().metadata().get(CRC32C_METADATA);
        if (expected != null) {
            String actual = ObjectKeys.crc32cBase64(ObjectKeys.crc32c(data.nioBuffer()));
            if (!expected.equals(actual)) {
                int size = data.readableBytes();
                data.release();
                throw new ObjectCorruptedException("Object " + ObjectKeys.printable(key) + " in bucket '" + bucket
                        + "' (" + location + ") is corrupted: its " + size
                        + " bytes have CRC32C " + actual + " but the object was written with " + expected);
            }
        }
        return data;
    }

    @Override
    public CompletableFuture<ByteBuffer> get(String key, long offset, long length) {
        return getRange(key, offset, length, new SizedResponseBody()).thenApply(ByteBuf::nioBuffer);
    }

    @Override
    public CompletableFuture<ByteBuf> get(String key, long offset, long length, ByteBufAllocator allocator) {
        return getRange(key, offset, length, new SizedResponseBody(allocator));
    }

    private CompletableFuture<ByteBuf> getRange(String key, long offset, long length, SizedResponseBody collector) {
        RangeRequest request;
        try {
            request = rangeRequest(key, offset, length);
        } catch (InvalidObjectKeyException | IllegalArgumentException e) {
            return CompletableFuture.failedFuture(e);
        }
        String physical = request.physical();
        String range = request.range();
        return execute(
                "get " + range + " of",
                key,
                () -> s3.getObject(r -> r.bucket(bucket).key(physical).range(range), collector.fresh())
                        .thenApply(bytes -> {
                            ByteBuf data = bytes.buffer();
                            if (bytes.response().contentRange() != null) {
                                return data;
                            }
                            // A store that ignored the Range header sent the whole object: cut it here.
                            if (offset >= data.readableBytes()) {
                                data.release();
                                throw new InvalidRangeException(rangeMessage(key, offset));
                            }
                            int from = (int) offset;
                            int to = (int) Math.min(data.readableBytes(), offset + length);
                            return data.slice(from, to - from);
                        }));
    }

    /**
     * One ranged GET whose body is pulled as the stream is read ({@link S3ObjectStream}). At most a quarter of
     * {@code maxConcurrentRequests} streams are open at once, since each holds a connection while its reader is
     * between reads; beyond that, and for what a stream's reader does after it was closed, reads are ranged GETs.
     */
    @Override
    public CompletableFuture<ObjectStream> openStream(String key, long offset, long length) {
        RangeRequest request;
        try {
            request = rangeRequest(key, offset, length);
        } catch (InvalidObjectKeyException | IllegalArgumentException e) {
            return CompletableFuture.failedFuture(e);
        }
        if (!streams.tryAcquire()) {
            return ObjectStore.super.openStream(key, offset, length);
        }
        AtomicBoolean released = new AtomicBoolean();
        AtomicReference<S3ObjectStream> made = new AtomicReference<>();
        Runnable release = () -> {
            if (released.compareAndSet(false, true)) {
                streams.release();
            }
            S3ObjectStream s = made.get();
            if (s != null) {
                openStreams.remove(s);
            }
        };
        long last = request.last();
        String range = request.range();
        CompletableFuture<ObjectStream> opened = execute(
                "stream " + range + " of",
                key,
                () -> s3.getObject(
                                r -> r.bucket(bucket).key(request.physical()).range(range),
                                AsyncResponseTransformer.<GetObjectResponse>toPublisher())
                        .thenApply(body -> {
                            GetObjectResponse response = body.response();
                            long size = response.contentLength();
                            boolean whole = response.contentRange() == null; // the store ignored the range
                            if (whole && offset >= size) {
                                body.subscribe(new CancellingSubscriber());
                                throw new InvalidRangeException(rangeMessage(key, offset));
                            }
                            long end = whole ? Math.min(size, last + 1) : offset + size;
                            S3ObjectStream stream = new S3ObjectStream(
                                    key,
                                    location,
                                    offset,
                                    end,
                                    whole ? offset : 0,
                                    streamIdle,
                                    config.requestTimeout(),
                                    timer,
                                    release);
                            made.set(stream);
                            openStreams.add(stream);
                            body.subscribe(stream);
                            return stream;
                        }));
        return opened.whenComplete((s, e) -> {
            if (e != null) {
                release.run();
            }
        });
    }

    /** A GET of bytes {@code [offset, last]} of an object, as the request names them. */
    private record RangeRequest(String physical, long last, String range) {}

    /** Fails on a key that breaks the rules or a range out of bounds, before any I/O. */
    private RangeRequest rangeRequest(String key, long offset, long length) {
        String physical = physicalKey(key);
        if (offset < 0 || length < 1) {
            throw new IllegalArgumentException(
                    "need offset >= 0 and length >= 1: offset " + offset + ", length " + length);
        }
        long last = offset + length - 1 < offset ? Long.MAX_VALUE : offset + length - 1;
        return new RangeRequest(physical, last, "bytes=" + offset + "-" + last);
    }

    /** Takes a body nobody reads and cancels it, so that its connection is closed. */
    private static final class CancellingSubscriber implements org.reactivestreams.Subscriber<ByteBuffer> {
        @Override
        public void onSubscribe(org.reactivestreams.Subscription s) {
            s.cancel();
        }

        @Override
        public void onNext(ByteBuffer b) {}

        @Override
        public void onError(Throwable t) {}

        @Override
        public void onComplete() {}
    }

    @Override
    public CompletableFuture<Optional<ObjectInfo>> head(String key) {
        String physical;
        try {
            physical = physicalKey(key);
        } catch (InvalidObjectKeyException e) {
            return CompletableFuture.failedFuture(e);
        }
        return execute(
                "head",
                key,
                () -> s3.headObject(r -> r.bucket(bucket).key(physical))
                        .thenApply(r -> Optional.of(new ObjectInfo(key, r.contentLength(), r.lastModified())))
                        .exceptionally(e -> {
                            if (RetryPolicy.unwrap(e) instanceof S3Exception s && s.statusCode() == 404) {
                                return Optional.empty();
                            }
                            throw e instanceof CompletionException ce ? ce : new CompletionException(e);
                        }));
    }

    @Override
    public CompletableFuture<ObjectListing> list(String prefix, String continuation, int maxKeys) {
        RuntimeException problem = ObjectKeys.listArgumentsProblem(prefix, maxKeys, location);
        if (problem != null) {
            return CompletableFuture.failedFuture(problem);
        }
        String physicalPrefix = keyPrefix + prefix;
        return execute(
                "list of prefix",
                prefix,
                () -> s3.listObjectsV2(r -> {
                            r.bucket(bucket).prefix(physicalPrefix).maxKeys(maxKeys);
                            if (continuation != null) {
                                r.continuationToken(continuation);
                            }
                        })
                        .thenApply(resp -> {
                            List<ObjectInfo> objects =
                                    new ArrayList<>(resp.contents().size());
                            for (var o : resp.contents()) {
                                if (o.key().startsWith(keyPrefix)) {
                                    objects.add(new ObjectInfo(
                                            o.key().substring(keyPrefix.length()), o.size(), o.lastModified()));
                                }
                            }
                            String next = Boolean.TRUE.equals(resp.isTruncated()) ? resp.nextContinuationToken() : null;
                            return new ObjectListing(objects, next);
                        }));
    }

    @Override
    public CompletableFuture<Void> delete(Collection<String> keys) {
        List<String> physical = new ArrayList<>(keys.size());
        try {
            for (String key : keys) {
                physical.add(physicalKey(key));
            }
        } catch (InvalidObjectKeyException e) {
            return CompletableFuture.failedFuture(e);
        }
        if (physical.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        List<CompletableFuture<Void>> batches = new ArrayList<>();
        for (int from = 0; from < physical.size(); from += MAX_DELETE_BATCH) {
            List<ObjectIdentifier> ids =
                    physical.subList(from, Math.min(physical.size(), from + MAX_DELETE_BATCH)).stream()
                            .map(k -> ObjectIdentifier.builder().key(k).build())
                            .toList();
            String first = ids.get(0).key().substring(keyPrefix.length());
            String what = "delete of " + ids.size() + " keys from";
            batches.add(execute(
                    what,
                    first,
                    () -> s3.deleteObjects(r ->
                                    r.bucket(bucket).delete(d -> d.quiet(true).objects(ids)))
                            .thenApply(resp -> {
                                checkDeleteErrors(resp, ids.size());
                                return null;
                            })));
        }
        return CompletableFuture.allOf(batches.toArray(CompletableFuture[]::new));
    }

    private void checkDeleteErrors(DeleteObjectsResponse resp, int batchSize) {
        List<S3Error> errors = resp.errors();
        if (errors == null || errors.isEmpty()) {
            return;
        }
        StringBuilder sb = new StringBuilder("Delete from ")
                .append(location)
                .append(" failed for ")
                .append(errors.size())
                .append(" of ")
                .append(batchSize)
                .append(" keys: ");
        boolean allRetryable = true;
        boolean denied = false;
        for (int i = 0; i < errors.size(); i++) {
            S3Error e = errors.get(i);
            allRetryable &= has(RETRYABLE_CODES, e.code());
            denied |= has(ACCESS_DENIED_CODES, e.code());
            if (i < 10) {
                String k = e.key() != null && e.key().startsWith(keyPrefix)
                        ? e.key().substring(keyPrefix.length())
                        : e.key();
                sb.append(i == 0 ? "" : ", ")
                        .append(ObjectKeys.printable(k))
                        .append(" (")
                        .append(e.code())
                        .append(": ")
                        .append(e.message())
                        .append(')');
            } else if (i == 10) {
                sb.append(", ...");
            }
        }
        String message = sb.toString();
        if (denied) {
            throw new ObjectStoreAccessDeniedException(message);
        }
        // Deletes are idempotent: a batch whose failures are all transient is retried whole.
        throw allRetryable ? new ObjectStoreUnavailableException(message) : new ObjectStoreException(message);
    }

    @Override
    public void close() {
        if (!lifecycle.close()) {
            return;
        }
        ObjectStoreException closedError = lifecycle.closedError("operation", null);
        limiter.close(closedError);
        // Operations in flight or waiting to retry fail now; their requests are aborted as the client closes.
        timer.shutdownNow();
        lifecycle.failInFlight(closedError);
        // A body's subscriber is not always told that its connection closed: close the streams here.
        List.copyOf(openStreams).forEach(S3ObjectStream::close);
        try {
            s3.close();
        } finally {
            try {
                httpClient.close();
            } finally {
                var unused = eventLoops.eventLoopGroup().shutdownGracefully(0, 1, TimeUnit.SECONDS); // not awaited
            }
        }
        LOG.info("Closed S3 object store {}", location);
    }

    // ---------------------------------------------------------------------------------------------

    private <T> CompletableFuture<T> execute(String op, String key, Supplier<CompletableFuture<T>> request) {
        CompletableFuture<T> refused = lifecycle.refusedIfClosed(op, key);
        if (refused != null) {
            return refused;
        }
        return lifecycle.track(retryPolicy.run(
                () -> lifecycle.isClosed()
                        ? CompletableFuture.failedFuture(lifecycle.closedError(op, key))
                        : limiter.withPermit(request),
                error -> {
                    boolean retry = isRetryable(error);
                    if (retry) {
                        LOG.debug(
                                "{} of {} in {} failed, will retry: {}",
                                op,
                                ObjectKeys.printable(key),
                                location,
                                error.toString());
                    }
                    return retry;
                },
                (error, attempts) -> mapError(op, key, error, attempts),
                timer));
    }

    private String physicalKey(String key) {
        ObjectKeys.validate(key, location);
        if (!keyPrefix.isEmpty()
                && ObjectKeys.utf8Length(keyPrefix) + ObjectKeys.utf8Length(key) > ObjectKeys.MAX_KEY_BYTES) {
            throw ObjectKeys.invalid(
                    key,
                    location,
                    "with the prefix '" + keyPrefix + "' the key is longer than " + ObjectKeys.MAX_KEY_BYTES
                            + " bytes in UTF-8");
        }
        return keyPrefix + key;
    }

    private String rangeMessage(String key, long offset) {
        return "Range starting at offset " + offset + " is at or past the end of object " + ObjectKeys.printable(key)
                + " in " + location;
    }

    /** Whether a failure of one attempt may go away on another attempt. */
    @SuppressWarnings("ReferenceEquality") // a cause that is itself ends the walk: identity is what is meant
    static boolean isRetryable(Throwable error) {
        Throwable t = RetryPolicy.unwrap(error);
        if (t instanceof ObjectStoreException e) {
            return e.isRetryable();
        }
        if (t instanceof S3Exception e) {
            return RETRYABLE_STATUS.contains(e.statusCode()) || has(RETRYABLE_CODES, errorCode(e));
        }
        if (isChecksumMismatch(t) || isMissingCredentials(t)) {
            return false;
        }
        if (t instanceof ApiCallAttemptTimeoutException || t instanceof ApiCallTimeoutException) {
            return true;
        }
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof IOException
                    || c instanceof java.util.concurrent.TimeoutException
                    || c instanceof io.netty.channel.ChannelException) {
                return true;
            }
            if (c.getCause() == c) {
                break;
            }
        }
        return t instanceof SdkException e && e.retryable();
    }

    private static boolean isMissingCredentials(Throwable t) {
        return t instanceof SdkClientException
                && t.getMessage() != null
                && t.getMessage().contains("Unable to load credentials");
    }

    private static boolean isChecksumMismatch(Throwable t) {
        return t instanceof SdkClientException
                && t.getMessage() != null
                && t.getMessage().toLowerCase(java.util.Locale.ROOT).contains("checksum");
    }

    /** {@code Set.of(...).contains(null)} throws; an error without a code is in no set. */
    private static boolean has(Set<String> codes, String code) {
        return code != null && codes.contains(code);
    }

    private static String errorCode(S3Exception e) {
        AwsErrorDetails d = e.awsErrorDetails();
        return d == null ? null : d.errorCode();
    }

    private static String detail(S3Exception e) {
        AwsErrorDetails d = e.awsErrorDetails();
        String code = d == null ? null : d.errorCode();
        String msg = d == null ? null : d.errorMessage();
        return "HTTP " + e.statusCode() + (code == null ? "" : " " + code)
                + (msg == null || msg.isBlank() ? "" : " (" + msg + ")");
    }

    private Throwable mapError(String op, String key, Throwable error, int attempts) {
        Throwable t = RetryPolicy.unwrap(error);
        if (t instanceof ObjectStoreException e) {
            return e;
        }
        if (lifecycle.isClosed()) {
            ObjectStoreException e = lifecycle.closedError(op, key);
            e.initCause(t);
            return e;
        }
        String subject = ObjectKeys.printable(key);
        String what = op + " " + subject + " in " + location;
        String tries = attempts > 1 ? " after " + attempts + " attempts" : "";
        if (t instanceof S3Exception e) {
            int status = e.statusCode();
            String code = errorCode(e);
            String detail = detail(e);
            if ("NoSuchBucket".equals(code)) {
                return new BucketNotFoundException(
                        "Bucket '" + bucket + "' does not exist at " + endpoint + ": " + what + " failed" + tries + ": "
                                + detail,
                        e);
            }
            if (status == 412 || (status == 409 && "ConditionalRequestConflict".equals(code))) {
                return new ObjectAlreadyExistsException(
                        "Object " + subject + " already exists in bucket '" + bucket
                                + "' (" + location + "): " + op + " failed" + tries + ": " + detail
                                + (attempts > 1 ? "; an earlier attempt of this call may have created it" : ""),
                        e);
            }
            if (status == 416 || "InvalidRange".equals(code)) {
                return new InvalidRangeException(rangeMessage(key, rangeStart(op)) + ": " + detail, e);
            }
            if (status == 404 || "NoSuchKey".equals(code)) {
                return new ObjectNotFoundException(
                        "No object " + subject + " in bucket '" + bucket + "' (" + location + "): " + op + " failed: "
                                + detail,
                        e);
            }
            if (status == 403 || has(ACCESS_DENIED_CODES, code)) {
                return new ObjectStoreAccessDeniedException(
                        "Access denied to bucket '" + bucket + "' at " + endpoint
                                + ": " + what + " failed: " + detail + " (check " + S3ObjectStoreConfig.ACCESS_KEY_ID
                                + ", " + S3ObjectStoreConfig.SECRET_ACCESS_KEY + " and the bucket's policy)",
                        e);
            }
            if (has(BAD_DIGEST_CODES, code)) {
                return new ObjectCorruptedException(
                        "The store rejected the body of " + what
                                + ": it did not match the CRC32C sent with it (the buffer changed during the put, or the"
                                + " bytes were damaged in transit): " + detail,
                        e);
            }
            if (isRetryable(e)) {
                return new ObjectStoreUnavailableException(
                        "S3 endpoint " + endpoint + " kept failing: " + what + " failed" + tries + ": " + detail, e);
            }
            return new ObjectStoreException(what + " failed" + tries + ": " + detail, e);
        }
        if (isMissingCredentials(t)) {
            return new ObjectStoreAccessDeniedException(
                    "No credentials for bucket '" + bucket + "' at " + endpoint
                            + ": " + what + " failed: set " + S3ObjectStoreConfig.ACCESS_KEY_ID + " and "
                            + S3ObjectStoreConfig.SECRET_ACCESS_KEY + ", or provide them to the AWS SDK's default chain"
                            + " (environment, system properties, profile, instance role): " + t.getMessage(),
                    t);
        }
        if (isChecksumMismatch(t)) {
            return new ObjectCorruptedException(
                    "Object " + subject + " in bucket '" + bucket + "' (" + location
                            + ") is corrupted: the bytes read do not match its stored checksum: " + t.getMessage(),
                    t);
        }
        if (isRetryable(t)) {
            return new ObjectStoreUnavailableException(
                    "S3 endpoint " + endpoint + " is unreachable or not answering: " + what + " failed" + tries + ": "
                            + rootMessage(t),
                    t);
        }
        return new ObjectStoreException(what + " failed" + tries + ": " + t, t);
    }

    private static long rangeStart(String op) {
        int i = op.indexOf("bytes=");
        if (i < 0) {
            return 0;
        }
        int dash = op.indexOf('-', i);
        try {
            return Long.parseLong(op.substring(i + 6, dash));
        } catch (RuntimeException e) {
            return 0;
        }
    }

    @SuppressWarnings("ReferenceEquality") // a cause that is the exception itself ends the walk: identity is meant
    private static String rootMessage(Throwable t) {
        StringBuilder sb = new StringBuilder(String.valueOf(t.getMessage()));
        Throwable c = t.getCause();
        int depth = 0;
        while (c != null && c != t && depth++ < 5) {
            if (c.getMessage() != null && !sb.toString().contains(c.getMessage())) {
                sb.append(" <- ")
                        .append(c.getClass().getSimpleName())
                        .append(": ")
                        .append(c.getMessage());
            }
            t = c;
            c = c.getCause();
        }
        return sb.toString();
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }
}
