package dev.lakestream.core.objectstore.s3;

import static dev.lakestream.core.objectstore.ObjectStoreTestSupport.await;
import static dev.lakestream.core.objectstore.ObjectStoreTestSupport.string;
import static dev.lakestream.core.objectstore.ObjectStoreTestSupport.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lakestream.core.config.ConfigException;
import dev.lakestream.core.config.ConfigReader;
import dev.lakestream.testkit.S3ProxyServer;
import dev.lakestream.testkit.TestCertificates;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * S3 over TLS: a real S3Proxy serving https with a certificate of a throw-away CA; the store trusts that CA through
 * {@code lakestream.s3.tlsTrustCertsFilePath}, and without it refuses the endpoint's certificate.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class S3ObjectStoreTlsTest {

    private static Path dir;
    private static TestCertificates certs;
    private static S3ProxyServer s3;
    private static String bucket;

    @BeforeAll
    static void startHttpsS3Proxy() throws Exception {
        dir = Files.createTempDirectory("s3-tls-");
        certs = TestCertificates.create(dir);
        s3 = S3ProxyServer.startWithHttps(certs.serverKeyStore(), certs.password());
        bucket = s3.createBucket();
    }

    @AfterAll
    static void stop() {
        if (s3 != null) {
            s3.close();
        }
    }

    private static ConfigReader properties(Map<String, String> extra) {
        java.util.Map<String, String> m = new java.util.HashMap<>(Map.of(
                "lakestream.s3.bucket",
                bucket,
                "lakestream.s3.endpoint",
                s3.httpsEndpoint().toString(),
                "lakestream.s3.pathStyleAccess",
                "true",
                "lakestream.s3.accessKeyId",
                s3.accessKey(),
                "lakestream.s3.secretAccessKey",
                s3.secretKey(),
                "lakestream.s3.maxRetries",
                "0",
                "lakestream.s3.requestTimeout",
                "5s"));
        m.putAll(extra);
        return new ConfigReader(m);
    }

    @Test
    void anHttpsEndpointSignedByTheConfiguredCaStoresAndReads() {
        S3ObjectStoreConfig config = S3ObjectStoreConfig.fromProperties(properties(
                Map.of("lakestream.s3.tlsTrustCertsFilePath", certs.caPem().toString())));
        assertThat(config.tlsTrustCertsFile()).isEqualTo(certs.caPem());
        try (S3ObjectStore store = new S3ObjectStore(config)) {
            await(store.put("tls/object", utf8("over TLS")));
            assertThat(string(await(store.get("tls/object")))).isEqualTo("over TLS");
        }
    }

    @Test
    void withoutTheCaTheEndpointsCertificateIsRefused() {
        S3ObjectStoreConfig config = S3ObjectStoreConfig.fromProperties(properties(Map.of()));
        try (S3ObjectStore store = new S3ObjectStore(config)) {
            // The SDK's Netty client reports the failed handshake as an attempt that never completed (an
            // unanswered endpoint), not as a certificate error: the store names the endpoint.
            assertThatThrownBy(() -> store.put("tls/refused", utf8("x")).get(30, TimeUnit.SECONDS))
                    .satisfies(e -> assertThat(causes(e))
                            .contains("ObjectStoreUnavailableException")
                            .contains(s3.httpsEndpoint().toString()));
        }
    }

    @Test
    void aCaFileThatIsNoCertificateOrAnHttpEndpointIsAConfigurationError(@TempDir Path tmp) throws Exception {
        Path junk = Files.writeString(tmp.resolve("junk.pem"), "not a certificate");
        assertThatThrownBy(() -> S3ObjectStoreConfig.fromProperties(
                        properties(Map.of("lakestream.s3.tlsTrustCertsFilePath", junk.toString()))))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("lakestream.s3.tlsTrustCertsFilePath")
                .hasMessageContaining(junk.toString());
        assertThatThrownBy(() -> S3ObjectStoreConfig.fromProperties(properties(Map.of(
                        "lakestream.s3.tlsTrustCertsFilePath", certs.caPem().toString(),
                        "lakestream.s3.endpoint", s3.endpoint().toString()))))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("lakestream.s3.tlsTrustCertsFilePath")
                .hasMessageContaining("https");
    }

    private static String causes(Throwable e) {
        StringBuilder sb = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            sb.append(t).append(" | ");
        }
        return sb.toString();
    }
}
