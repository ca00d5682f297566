package dev.lakestream.core.objectstore.s3;

import static dev.lakestream.core.objectstore.ObjectStoreTestSupport.await;
import static dev.lakestream.core.objectstore.ObjectStoreTestSupport.failure;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lakestream.core.objectstore.ObjectStoreUnavailableException;
import dev.lakestream.core.objectstore.ObjectUpload;
import dev.lakestream.testkit.FaultyHttpProxy;
import dev.lakestream.testkit.S3ProxyExtension;
import java.net.URI;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.http.nio.netty.SdkEventLoopGroup;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3AsyncClient;

/**
 * Streamed uploads on a real S3Proxy: a multipart upload, invisible until complete, aborted on failure (no pending
 * upload left, as ListMultipartUploads shows), and retried part by part through a {@link FaultyHttpProxy}.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class S3ObjectUploadTest {

    @RegisterExtension
    static final S3ProxyExtension S3 = new S3ProxyExtension();

    private static final int PART = S3ObjectStore.UPLOAD_PART_BYTES;

    private final List<AutoCloseable> toClose = new ArrayList<>();
    private String bucket;
    private S3AsyncClient raw;

    @BeforeEach
    void open() {
        bucket = S3.createBucket();
        SdkEventLoopGroup loops = SdkEventLoopGroup.builder().numberOfThreads(1).build();
        raw = S3AsyncClient.builder()
                .httpClientBuilder(NettyNioAsyncHttpClient.builder().eventLoopGroup(loops))
                .endpointOverride(S3.endpoint())
                .forcePathStyle(true)
                .region(Region.of(S3.region()))
                .credentialsProvider(
                        StaticCredentialsProvider.create(AwsBasicCredentials.create(S3.accessKey(), S3.secretKey())))
                .build();
        toClose.add(() -> {
            var unused = loops.eventLoopGroup().shutdownGracefully(0, 1, TimeUnit.SECONDS); // not awaited
        });
        toClose.add(raw);
    }

    @AfterEach
    void close() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
    }

    private S3ObjectStore store(URI endpoint, int maxRetries) {
        S3ObjectStore store = new S3ObjectStore(S3ObjectStoreConfig.builder()
                .bucket(bucket)
                .prefix("p")
                .endpoint(endpoint)
                .region(S3.region())
                .pathStyleAccess(true)
                .credentials(S3.accessKey(), S3.secretKey())
                .requestTimeout(Duration.ofSeconds(10))
                .maxRetries(maxRetries)
                .retryBaseDelay(Duration.ofMillis(10))
                .retryMaxDelay(Duration.ofMillis(40))
                .build());
        toClose.add(store);
        return store;
    }

    private FaultyHttpProxy proxy() {
        FaultyHttpProxy proxy = FaultyHttpProxy.start(S3.endpoint());
        toClose.add(proxy);
        return proxy;
    }

    private static byte[] random(int size) {
        byte[] b = new byte[size];
        new Random(size).nextBytes(b);
        return b;
    }

    /** Writes {@code bytes} in 1 MiB pieces, waiting for readiness after each, as the compactor does. */
    private static void write(ObjectUpload upload, byte[] bytes) {
        for (int at = 0; at < bytes.length; at += 1 << 20) {
            upload.write(ByteBuffer.wrap(bytes, at, Math.min(1 << 20, bytes.length - at)));
            await(upload.ready());
        }
    }

    /** Multipart uploads pending in the bucket, as S3 (S3Proxy) lists them. */
    private List<String> pendingUploads() {
        return raw.listMultipartUploads(r -> r.bucket(bucket)).join().uploads().stream()
                .map(u -> u.key() + " " + u.uploadId())
                .toList();
    }

    @Test
    void aMultiPartUploadRoundTripsByteExactAndIsInvisibleUntilComplete() {
        S3ObjectStore store = store(S3.endpoint(), 3);
        byte[] bytes = random(2 * PART + 12345); // three parts, the last one small
        ObjectUpload upload = store.newUpload("segments/1/a.parquet");
        write(upload, bytes);
        assertThat(await(store.head("segments/1/a.parquet")))
                .as("invisible before complete")
                .isEmpty();
        assertThat(pendingUploads()).hasSize(1);
        assertThat(upload.peakBufferedBytes()).isLessThanOrEqualTo(2L * PART + (1 << 20));

        await(upload.complete());

        assertThat(await(store.get("segments/1/a.parquet"))).isEqualTo(ByteBuffer.wrap(bytes));
        assertThat(await(store.get("segments/1/a.parquet", PART - 10, 20)))
                .isEqualTo(ByteBuffer.wrap(bytes, PART - 10, 20));
        assertThat(await(store.head("segments/1/a.parquet")).orElseThrow().size())
                .isEqualTo(bytes.length);
        assertThat(pendingUploads()).isEmpty();
    }

    @Test
    void anAbortedUploadLeavesNoObjectAndNoPendingUpload() {
        S3ObjectStore store = store(S3.endpoint(), 3);
        ObjectUpload upload = store.newUpload("segments/1/b.parquet");
        write(upload, random(2 * PART + 1));
        assertThat(pendingUploads()).hasSize(1);
        await(upload.abort());
        assertThat(await(store.head("segments/1/b.parquet"))).isEmpty();
        assertThat(pendingUploads()).isEmpty();
    }

    @Test
    void failedAndDroppedPartRequestsAreRetriedToSuccess() {
        FaultyHttpProxy proxy = proxy();
        S3ObjectStore store = store(proxy.endpoint(), 3);
        byte[] bytes = random(2 * PART + 777);
        ObjectUpload upload = store.newUpload("segments/1/c.parquet");
        for (int at = 0; at < bytes.length; at += 1 << 20) {
            if (at == PART + (1 << 20)) {
                proxy.failNextRequests(2); // the first part's upload (and the create before it) refused twice
            }
            if (at == 2 * PART + (1 << 20)) {
                proxy.dropNextRequests(1); // a connection dropped during the second part's
            }
            upload.write(ByteBuffer.wrap(bytes, at, Math.min(1 << 20, bytes.length - at)));
            await(upload.ready());
        }
        await(upload.complete());
        assertThat(await(store.get("segments/1/c.parquet"))).isEqualTo(ByteBuffer.wrap(bytes));
        assertThat(proxy.requests())
                .as("the refused and dropped attempts were retried")
                .isGreaterThan(proxy.forwarded());
        assertThat(pendingUploads()).isEmpty();
    }

    @Test
    void aPartThatOutlastsTheRetriesFailsTheUploadNamingKeyAndPartAndLeavesNothing() {
        FaultyHttpProxy proxy = proxy();
        S3ObjectStore store = store(proxy.endpoint(), 2);
        ObjectUpload upload = store.newUpload("segments/1/d.parquet");
        write(upload, random(PART + 10));
        while (upload.bufferedBytes() > 10) {
            Thread.onSpinWait(); // part 1 stored: only the 10 bytes of part 2 left
        }
        proxy.failNextRequests(3); // part 2: three attempts, all refused
        upload.write(ByteBuffer.wrap(random(PART)));
        ObjectStoreUnavailableException e = failure(upload.complete(), ObjectStoreUnavailableException.class);
        assertThat(e.getMessage())
                .contains("segments/1/d.parquet")
                .contains("part 2")
                .contains("after 3 attempts");
        failure(upload.ready(), ObjectStoreUnavailableException.class);
        assertThat(await(store.head("segments/1/d.parquet"))).isEmpty();
        assertThat(pendingUploads()).as("the upload aborted: no parts left").isEmpty();
    }
}
