package dev.lakestream.core.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lakestream.core.metadata.oxia.OxiaMetadataStore;
import dev.lakestream.core.metadata.oxia.OxiaMetadataStoreConfig;
import dev.lakestream.testkit.OxiaServerExtension;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The conformance suite against a real Oxia server (one per class; the suite wipes it before each test). */
class OxiaMetadataStoreConformanceTest extends MetadataStoreConformanceTest {

    @RegisterExtension
    static final OxiaServerExtension OXIA = new OxiaServerExtension();

    private static OxiaMetadataStoreConfig config() {
        return OxiaMetadataStoreConfig.of(OXIA.serviceAddress())
                .withRequestTimeout(Duration.ofSeconds(10))
                .withConnectTimeout(Duration.ofSeconds(20));
    }

    @Override
    protected MetadataStore openStore() {
        return OxiaMetadataStore.open(config());
    }

    @Override
    protected Optional<MetadataStore> openSecondClient() {
        return Optional.of(openStore());
    }

    @Override
    protected MetadataStore restartBackend(MetadataStore current) {
        OXIA.restart();
        // The open client reconnects by itself.
        retryWhileUnavailable(Duration.ofSeconds(30), () -> join(current.get(p + "/keep")));
        return current;
    }

    @Test
    void anUnreachableServerFailsWithinTheConnectTimeout() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        OxiaMetadataStoreConfig cfg =
                OxiaMetadataStoreConfig.of("127.0.0.1:" + port).withConnectTimeout(Duration.ofMillis(1500));
        long start = System.nanoTime();
        assertThatThrownBy(() -> OxiaMetadataStore.open(cfg))
                .isInstanceOf(MetadataStoreUnavailableException.class)
                .hasMessageContaining("127.0.0.1:" + port)
                .hasMessageContaining(OxiaMetadataStoreConfig.CONNECT_TIMEOUT);
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertThat(took).isBetween(Duration.ofMillis(1400), Duration.ofSeconds(10));
    }

    @Test
    void anUnknownNamespaceIsRefused() {
        OxiaMetadataStoreConfig cfg =
                config().withNamespace("no-such-namespace").withConnectTimeout(Duration.ofSeconds(5));
        assertThatThrownBy(() -> OxiaMetadataStore.open(cfg))
                .isExactlyInstanceOf(MetadataStoreException.class)
                .hasMessageContaining("no-such-namespace")
                .hasMessageContaining(OXIA.serviceAddress());
    }

    @Test
    void operationsFailAsUnavailableWhileTheServerIsDownAndWorkAgainAfter() {
        join(store.put(p + "/k", bytes("v")));
        try (MetadataStore s = OxiaMetadataStore.open(config().withRequestTimeout(Duration.ofSeconds(2)))) {
            join(s.get(p + "/k"));
            OXIA.server().stop();
            try {
                long start = System.nanoTime();
                assertThatThrownBy(() -> join(s.put(p + "/k", bytes("w"))))
                        .isInstanceOf(MetadataStoreUnavailableException.class)
                        .hasMessageContaining(s.address())
                        .hasMessageContaining(p + "/k");
                assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
                // Scans too: the client's callback scan has no deadline of its own.
                long scanStart = System.nanoTime();
                assertThatThrownBy(() -> join(s.rangeScan(p + "/", p + "//", java.util.Optional.empty(), 10)))
                        .isInstanceOf(MetadataStoreUnavailableException.class)
                        .hasMessageContaining(s.address());
                assertThat(Duration.ofNanos(System.nanoTime() - scanStart)).isLessThan(Duration.ofSeconds(10));
            } finally {
                OXIA.server().start();
            }
            assertThat(retryWhileUnavailable(Duration.ofSeconds(30), () -> join(s.get(p + "/k"))))
                    .map(r -> new String(r.value(), java.nio.charset.StandardCharsets.UTF_8))
                    .contains("v");
        }
    }

    /**
     * Oxia v0.15 appends a sequence put to its WAL before finding it has too few deltas; replaying that entry
     * then fails and the server cannot start again. The store refuses such puts itself, so the server restarts.
     */
    @Test
    void aSequencePutWithTooFewDeltasIsRefusedLocallyAndTheServerStillRestarts() {
        PutOptions seq = PutOptions.DEFAULT.partitionKey(p);
        join(store.put(p + "/s", bytes("x"), seq.sequenceKeyDeltas(1, 1)));
        try (MetadataStore other = openStore()) {
            assertThatThrownBy(() -> join(other.put(p + "/s", bytes("x"), seq.sequenceKeyDeltas(1))))
                    .isInstanceOf(InvalidKeyException.class)
                    .hasMessageContaining(p + "/s");
        }
        assertThatThrownBy(() -> join(store.put(p + "/s", bytes("x"), seq.sequenceKeyDeltas(1))))
                .isInstanceOf(InvalidKeyException.class)
                .hasMessageContaining(p + "/s");
        OXIA.restart();
        try (MetadataStore after = openStore()) {
            assertThat(join(after.put(p + "/s", bytes("x"), seq.sequenceKeyDeltas(1, 1)))
                            .key())
                    .isEqualTo(p + "/s-00000000000000000002-00000000000000000002");
        }
    }

    @Test
    void operationsOnAClosedStoreFailAsUnavailable() {
        MetadataStore s = openStore();
        s.close();
        assertThatThrownBy(() -> join(s.get(p + "/x")))
                .isInstanceOf(MetadataStoreUnavailableException.class)
                .hasMessageContaining(s.address());
        assertThatThrownBy(() -> join(s.put(p + "/x", bytes("x"))))
                .isInstanceOf(MetadataStoreUnavailableException.class);
    }
}
