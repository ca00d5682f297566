package dev.lakestream.core.objectstore.s3;

import static dev.lakestream.core.objectstore.ObjectStoreTestSupport.await;
import static dev.lakestream.core.objectstore.ObjectStoreTestSupport.failure;
import static dev.lakestream.core.objectstore.ObjectStoreTestSupport.string;
import static dev.lakestream.core.objectstore.ObjectStoreTestSupport.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lakestream.core.objectstore.BucketNotFoundException;
import dev.lakestream.core.objectstore.InvalidRangeException;
import dev.lakestream.core.objectstore.ObjectAlreadyExistsException;
import dev.lakestream.core.objectstore.ObjectCorruptedException;
import dev.lakestream.core.objectstore.ObjectKeys;
import dev.lakestream.core.objectstore.ObjectNotFoundException;
import dev.lakestream.core.objectstore.ObjectStoreAccessDeniedException;
import dev.lakestream.core.objectstore.ObjectStoreException;
import dev.lakestream.core.objectstore.ObjectStoreUnavailableException;
import dev.lakestream.testkit.FaultyHttpProxy;
import dev.lakestream.testkit.S3ProxyExtension;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.async.AsyncRequestBody;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.http.nio.netty.SdkEventLoopGroup;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3AsyncClient;

/**
 * What the S3 store does when S3 misbehaves: a real S3Proxy, with a {@link FaultyHttpProxy} in front of it
 * where a test needs 503s, delays or dropped connections.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class S3ObjectStoreFaultTest {

    @RegisterExtension
    static final S3ProxyExtension S3 = new S3ProxyExtension();

    private final List<AutoCloseable> toClose = new ArrayList<>();
    private String bucket;

    @BeforeEach
    void createBucket() {
        bucket = S3.createBucket();
    }

    @AfterEach
    void closeAll() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
    }

    /** Quick retries: 10..40 ms ceilings, so exhausting them takes well under a second. */
    private S3ObjectStoreConfig.Builder config(URI endpoint) {
        return S3ObjectStoreConfig.builder()
                .bucket(bucket)
                .endpoint(endpoint)
                .region(S3.region())
                .pathStyleAccess(true)
                .credentials(S3.accessKey(), S3.secretKey())
                .requestTimeout(Duration.ofSeconds(5))
                .maxRetries(3)
                .retryBaseDelay(Duration.ofMillis(10))
                .retryMaxDelay(Duration.ofMillis(40));
    }

    private S3ObjectStore open(S3ObjectStoreConfig config) {
        S3ObjectStore store = new S3ObjectStore(config);
        toClose.add(store);
        return store;
    }

    /** A plain SDK client on the server, for writing behind the store's back. */
    private S3AsyncClient rawClient() {
        SdkEventLoopGroup loops = SdkEventLoopGroup.builder().numberOfThreads(1).build();
        S3AsyncClient raw = S3AsyncClient.builder()
                .httpClientBuilder(NettyNioAsyncHttpClient.builder().eventLoopGroup(loops))
                .endpointOverride(S3.endpoint())
                .forcePathStyle(true)
                .region(Region.of(S3.region()))
                .credentialsProvider(
                        StaticCredentialsProvider.create(AwsBasicCredentials.create(S3.accessKey(), S3.secretKey())))
                .build();
        // Closed without the default event loop group's 2 s quiet period.
        toClose.add(() -> {
            // Started, not awaited: as before, the test does not wait for the loops to end.
            var unused = loops.eventLoopGroup().shutdownGracefully(0, 1, TimeUnit.SECONDS);
        });
        toClose.add(raw);
        return raw;
    }

    private FaultyHttpProxy proxy() {
        FaultyHttpProxy proxy = FaultyHttpProxy.start(S3.endpoint());
        toClose.add(proxy);
        return proxy;
    }

    // ---------------------------------------------------------------------------------------------
    // Unreachable, refused, missing

    @Test
    void unreachableEndpointFailsAsUnavailableNamingTheEndpoint() throws IOException {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        URI endpoint = URI.create("http://127.0.0.1:" + closedPort);
        S3ObjectStore store = open(config(endpoint).build());
        long start = System.nanoTime();
        ObjectStoreUnavailableException e = failure(store.put("k", utf8("v")), ObjectStoreUnavailableException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
        assertThat(e.getMessage())
                .contains(endpoint.toString())
                .contains(bucket)
                .contains("'k'")
                .contains("after 4 attempts");
        assertThat(e.isRetryable()).isTrue();
        failure(store.get("k"), ObjectStoreUnavailableException.class);
    }

    @Test
    void wrongSecretIsAccessDenied() {
        S3ObjectStore store = open(config(S3.endpoint())
                .credentials(S3.accessKey(), "wrong-secret")
                .build());
        ObjectStoreAccessDeniedException e = failure(store.put("k", utf8("v")), ObjectStoreAccessDeniedException.class);
        assertThat(e.getMessage())
                .contains(bucket)
                .contains(S3.endpoint().toString())
                .contains("'k'");
        failure(store.get("k"), ObjectStoreAccessDeniedException.class);
        failure(store.list("", null, 10), ObjectStoreAccessDeniedException.class);
    }

    @Test
    void unknownAccessKeyIsAccessDenied() {
        S3ObjectStore store =
                open(config(S3.endpoint()).credentials("nobody", S3.secretKey()).build());
        failure(store.put("k", utf8("v")), ObjectStoreAccessDeniedException.class);
    }

    @Test
    void accessDeniedIsNotRetried() {
        FaultyHttpProxy proxy = proxy();
        S3ObjectStore store = open(config(proxy.endpoint())
                .credentials(S3.accessKey(), "wrong-secret")
                .build());
        failure(store.get("k"), ObjectStoreAccessDeniedException.class);
        assertThat(proxy.requests()).isEqualTo(1);
    }

    @Test
    void missingBucketIsBucketNotFoundNamingIt() {
        S3ObjectStore store =
                open(config(S3.endpoint()).bucket("no-such-bucket-here").build());
        BucketNotFoundException e = failure(store.put("k", utf8("v")), BucketNotFoundException.class);
        assertThat(e.getMessage())
                .contains("no-such-bucket-here")
                .contains(S3.endpoint().toString());
        failure(store.get("k"), BucketNotFoundException.class);
        failure(store.list("", null, 10), BucketNotFoundException.class);
        // (S3 also refuses DeleteObjects on a missing bucket; S3Proxy's filesystem backend answers 200.)
    }

    // ---------------------------------------------------------------------------------------------
    // 503, timeouts, dropped connections

    @Test
    void putSucceedsAfterTwo503s() {
        FaultyHttpProxy proxy = proxy();
        S3ObjectStore store = open(config(proxy.endpoint()).build());
        proxy.failNextRequests(2);
        await(store.put("retried", utf8("made it")));
        assertThat(proxy.requests()).isEqualTo(3);
        assertThat(proxy.forwarded()).isEqualTo(1);
        assertThat(string(await(store.get("retried")))).isEqualTo("made it");
    }

    @Test
    void every503ExhaustsTheRetries() {
        FaultyHttpProxy proxy = proxy();
        S3ObjectStore store = open(config(proxy.endpoint()).maxRetries(3).build());
        proxy.failAllRequests();
        ObjectStoreUnavailableException e = failure(store.put("k", utf8("v")), ObjectStoreUnavailableException.class);
        assertThat(proxy.requests()).isEqualTo(4);
        assertThat(proxy.forwarded()).isZero();
        assertThat(e.getMessage())
                .contains("503")
                .contains("SlowDown")
                .contains(proxy.endpoint().toString())
                .contains(bucket)
                .contains("after 4 attempts");

        proxy.resetCounters();
        failure(store.head("k"), ObjectStoreUnavailableException.class);
        assertThat(proxy.requests()).isEqualTo(4);

        proxy.heal();
        await(store.put("k", utf8("v")));
    }

    @Test
    void zeroRetriesMeansOneAttempt() {
        FaultyHttpProxy proxy = proxy();
        S3ObjectStore store = open(config(proxy.endpoint()).maxRetries(0).build());
        proxy.failAllRequests();
        failure(store.get("k"), ObjectStoreUnavailableException.class);
        assertThat(proxy.requests()).isEqualTo(1);
    }

    @Test
    void every503OnReadsListsAndDeletesIsRetriedToo() {
        FaultyHttpProxy proxy = proxy();
        S3ObjectStore store = open(config(proxy.endpoint()).build());
        await(store.put("a", utf8("A")));
        proxy.failNextRequests(1);
        assertThat(string(await(store.get("a")))).isEqualTo("A");
        proxy.failNextRequests(1);
        assertThat(string(await(store.get("a", 0, 1)))).isEqualTo("A");
        proxy.failNextRequests(1);
        assertThat(await(store.head("a"))).isPresent();
        proxy.failNextRequests(1);
        assertThat(await(store.list("", null, 10)).objects()).hasSize(1);
        proxy.failNextRequests(1);
        await(store.delete(List.of("a")));
        assertThat(await(store.head("a"))).isEmpty();
    }

    @Test
    void clientErrorsAreNotRetried() {
        FaultyHttpProxy proxy = proxy();
        S3ObjectStore store = open(config(proxy.endpoint()).build());
        await(store.put("exists", utf8("x")));
        proxy.resetCounters();
        failure(store.putIfAbsent("exists", utf8("y")), ObjectAlreadyExistsException.class);
        assertThat(proxy.requests()).isEqualTo(1);
        failure(store.get("missing"), ObjectNotFoundException.class);
        assertThat(proxy.requests()).isEqualTo(2);
        failure(store.get("exists", 5, 1), InvalidRangeException.class);
        assertThat(proxy.requests()).isEqualTo(3);
    }

    @Test
    void aResponseSlowerThanTheRequestTimeoutIsRetried() {
        FaultyHttpProxy proxy = proxy();
        S3ObjectStore store = open(
                config(proxy.endpoint()).requestTimeout(Duration.ofMillis(500)).build());
        await(store.put("warm-up", utf8("x"))); // the connection exists, so only the delay counts
        proxy.resetCounters();
        proxy.delayNextRequests(1, Duration.ofSeconds(3));
        long start = System.nanoTime();
        await(store.put("slow", utf8("eventually")));
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
        assertThat(proxy.requests()).isEqualTo(2);
        assertThat(string(await(store.get("slow")))).isEqualTo("eventually");
    }

    @Test
    void responsesAlwaysSlowerThanTheRequestTimeoutFailClearly() {
        FaultyHttpProxy proxy = proxy();
        S3ObjectStore store = open(config(proxy.endpoint())
                .requestTimeout(Duration.ofMillis(300))
                .maxRetries(2)
                .build());
        proxy.delayAllRequests(Duration.ofSeconds(5));
        long start = System.nanoTime();
        ObjectStoreUnavailableException e = failure(store.get("k"), ObjectStoreUnavailableException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(4));
        assertThat(proxy.requests()).isEqualTo(3);
        assertThat(e.getMessage())
                .contains(proxy.endpoint().toString())
                .contains("'k'")
                .contains("after 3 attempts")
                .containsIgnoringCase("timeout");
    }

    /**
     * Black-holed requests the client gave up on must not keep the proxy's connection slots until their delay ends, and
     * a heal must end every hold: the nemesis black-holed S3 (1 h holds) a few times, and every later request was
     * refused for want of a slot, S3 unreachable for good.
     */
    @Test
    void heldRequestsEndWhenTheClientGivesUpOrTheProxyHeals() {
        FaultyHttpProxy proxy = proxy();
        S3ObjectStore store = open(config(proxy.endpoint())
                .requestTimeout(Duration.ofMillis(200))
                .maxRetries(0)
                .maxConcurrentRequests(4)
                .build());
        proxy.delayAllRequests(Duration.ofHours(1));
        for (int i = 0; i < 20; i++) {
            failure(store.get("k" + i), ObjectStoreUnavailableException.class);
        }
        Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> proxy.inFlight() == 0);
        proxy.heal();
        await(store.put("after", utf8("v")));
        assertThat(string(await(store.get("after")))).isEqualTo("v");

        // A request held when the proxy heals goes on at once.
        S3ObjectStore patient = open(
                config(proxy.endpoint()).requestTimeout(Duration.ofSeconds(30)).build());
        proxy.delayAllRequests(Duration.ofHours(1));
        var held = patient.get("after");
        Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> proxy.inFlight() == 1);
        proxy.heal();
        assertThat(string(await(held))).isEqualTo("v");
    }

    @Test
    void aDroppedConnectionIsRetried() {
        FaultyHttpProxy proxy = proxy();
        S3ObjectStore store = open(config(proxy.endpoint()).build());
        proxy.dropNextRequests(2);
        await(store.put("dropped", utf8("x")));
        assertThat(proxy.requests()).isEqualTo(3);
    }

    @Test
    void aResponseCutOffMidBodyIsRetriedAndNeverReturnsShortBytes() {
        FaultyHttpProxy proxy = proxy();
        S3ObjectStore store = open(config(proxy.endpoint()).build());
        byte[] data = new byte[256 << 10];
        new java.util.SplittableRandom(3).nextBytes(data);
        await(store.put("cut", ByteBuffer.wrap(data)));

        proxy.resetCounters();
        proxy.truncateNextResponses(2);
        ByteBuffer whole = await(store.get("cut"));
        assertThat(proxy.requests()).isEqualTo(3);
        byte[] read = new byte[whole.remaining()];
        whole.get(read);
        assertThat(read).isEqualTo(data);

        proxy.resetCounters();
        proxy.truncateNextResponses(1);
        ByteBuffer range = await(store.get("cut", 1000, 100_000));
        assertThat(proxy.requests()).isEqualTo(2);
        assertThat(range.remaining()).isEqualTo(100_000);
        assertThat(range.get(0)).isEqualTo(data[1000]);
        assertThat(range.get(99_999)).isEqualTo(data[100_999]);

        proxy.truncateNextResponses(Integer.MAX_VALUE);
        ObjectStoreUnavailableException e = failure(store.get("cut"), ObjectStoreUnavailableException.class);
        assertThat(e.getMessage()).contains("cut").contains("after 4 attempts");
        proxy.heal();
    }

    @Test
    void aStreamCutOffMidBodyFailsTheReadPastTheCutNamingTheObjectAndNeverReturnsShortBytes() {
        FaultyHttpProxy proxy = proxy();
        S3ObjectStore store = open(config(proxy.endpoint()).build());
        byte[] data = new byte[256 << 10];
        new java.util.SplittableRandom(4).nextBytes(data);
        await(store.put("cut", ByteBuffer.wrap(data)));

        proxy.truncateNextResponses(1);
        dev.lakestream.core.objectstore.ObjectStream s = await(store.openStream("cut", 0, data.length));
        ByteBuffer first = await(s.read(1000));
        assertThat(first.remaining()).isEqualTo(1000);
        assertThat(first.get(999)).isEqualTo(data[999]);
        ObjectStoreException e = failure(s.read(data.length), ObjectStoreException.class);
        assertThat(e.getMessage()).contains("cut").contains("position");
        assertThat(s.isOpen()).isFalse();
    }

    // ---------------------------------------------------------------------------------------------
    // Bounded concurrency, non-blocking calls

    @Test
    void inFlightRequestsNeverExceedTheLimit() {
        FaultyHttpProxy proxy = proxy();
        S3ObjectStore store =
                open(config(proxy.endpoint()).maxConcurrentRequests(3).build());
        await(store.put("warm-up", utf8("x"))); // class loading and the first connection
        proxy.resetCounters();
        proxy.delayAllRequests(Duration.ofMillis(100));
        long start = System.nanoTime();
        List<CompletableFuture<Void>> puts = new ArrayList<>();
        for (int i = 0; i < 24; i++) {
            puts.add(store.put("bounded/" + i, utf8("v" + i)));
        }
        Duration issuing = Duration.ofNanos(System.nanoTime() - start);
        assertThat(issuing).as("calls return without waiting for the server").isLessThan(Duration.ofMillis(300));
        assertThat(puts).anyMatch(f -> !f.isDone());
        await(CompletableFuture.allOf(puts.toArray(CompletableFuture[]::new)));
        assertThat(proxy.requests()).isEqualTo(24);
        assertThat(proxy.maxInFlight()).isEqualTo(3);
    }

    @Test
    void closeFailsOperationsWaitingToRetryOrInFlight() {
        FaultyHttpProxy proxy = proxy();
        S3ObjectStore store = new S3ObjectStore(config(proxy.endpoint())
                .retryBaseDelay(Duration.ofSeconds(5))
                .retryMaxDelay(Duration.ofSeconds(5))
                .maxRetries(5)
                .build());
        await(store.put("warm-up", utf8("x")));
        proxy.failNextRequests(1);
        CompletableFuture<java.nio.ByteBuffer> backingOff = store.get("warm-up");
        proxy.delayAllRequests(Duration.ofSeconds(10));
        CompletableFuture<java.nio.ByteBuffer> inFlight = store.get("warm-up", 0, 1);
        long start = System.nanoTime();
        store.close();
        failure(backingOff, dev.lakestream.core.objectstore.ObjectStoreException.class);
        failure(inFlight, dev.lakestream.core.objectstore.ObjectStoreException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(4));
    }

    // ---------------------------------------------------------------------------------------------
    // Integrity

    @Test
    void anObjectAlteredInTheStoreIsCorrupted() throws IOException {
        S3ObjectStore store = open(config(S3.endpoint()).prefix("segments").build());
        byte[] data = "original bytes of the object".getBytes(StandardCharsets.UTF_8);
        await(store.put("ledger/7", ByteBuffer.wrap(data)));
        Path file = S3.objectFile(bucket, "segments/ledger/7");
        assertThat(file).exists();
        // Change one byte in place, keeping the file's extended attributes (S3Proxy's metadata).
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(new byte[] {'O'}), 0);
        }
        ObjectCorruptedException e = failure(store.get("ledger/7"), ObjectCorruptedException.class);
        assertThat(e.getMessage()).contains(bucket).contains("'ledger/7'");
        // Ranged reads are not verified: they return what the store holds.
        assertThat(string(await(store.get("ledger/7", 0, 8)))).isEqualTo("Original");
    }

    @Test
    void anObjectWhoseBytesDoNotMatchOurChecksumIsCorrupted() {
        // Written behind the store's back, with no S3 checksum but a wrong checksum in our metadata: only the
        // store's own verification can catch it.
        {
            S3AsyncClient raw = rawClient();
            raw.putObject(
                            r -> r.bucket(bucket)
                                    .key("forged")
                                    .metadata(Map.of(
                                            S3ObjectStore.CRC32C_METADATA,
                                            ObjectKeys.crc32cBase64(ObjectKeys.crc32c(utf8("other bytes"))))),
                            AsyncRequestBody.fromString("these bytes"))
                    .join();
        }
        S3ObjectStore store = open(config(S3.endpoint()).build());
        ObjectCorruptedException e = failure(store.get("forged"), ObjectCorruptedException.class);
        assertThat(e.getMessage()).contains(bucket).contains("'forged'");
    }

    @Test
    void eachPutStoresTheChecksumWithTheObject() {
        S3ObjectStore store = open(config(S3.endpoint()).build());
        await(store.put("checked", utf8("abc")));
        {
            S3AsyncClient raw = rawClient();
            var head = raw.headObject(r -> r.bucket(bucket)
                            .key("checked")
                            .checksumMode(software.amazon.awssdk.services.s3.model.ChecksumMode.ENABLED))
                    .join();
            String expected = ObjectKeys.crc32cBase64(ObjectKeys.crc32c(utf8("abc")));
            assertThat(head.checksumCRC32C()).isEqualTo(expected);
            assertThat(head.metadata()).containsEntry(S3ObjectStore.CRC32C_METADATA, expected);
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Layout, restart

    @Test
    void thePrefixIsPrependedAndStripped() {
        S3ObjectStore store = open(config(S3.endpoint()).prefix("/tenant/ns/").build());
        assertThat(store.location()).isEqualTo("s3://" + bucket + "/tenant/ns at " + S3.endpoint());
        await(store.put("a/b", utf8("x")));
        assertThat(S3.objectFile(bucket, "tenant/ns/a/b")).exists();
        assertThat(await(store.list("a/", null, 10)).objects())
                .extracting(o -> o.key())
                .containsExactly("a/b");
        S3ObjectStore unprefixed = open(config(S3.endpoint()).build());
        assertThat(await(unprefixed.list("", null, 10)).objects())
                .extracting(o -> o.key())
                .containsExactly("tenant/ns/a/b");
    }

    @Test
    void theStoreCarriesOnAfterTheServerRestarts() {
        S3ObjectStore store = open(config(S3.endpoint()).build());
        await(store.put("survives", utf8("restart")));
        S3.server().restart();
        assertThat(string(await(store.get("survives")))).isEqualTo("restart");
        await(store.put("after", utf8("restart")));
    }

    // ---------------------------------------------------------------------------------------------
}
