package dev.lakestream.core.metadata;

import static dev.lakestream.core.metadata.MetadataStoreConformanceTest.bytes;
import static dev.lakestream.core.metadata.MetadataStoreConformanceTest.join;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lakestream.core.metadata.oxia.OxiaMetadataStore;
import dev.lakestream.core.metadata.oxia.OxiaMetadataStoreConfig;
import dev.lakestream.testkit.OxiaServer;
import dev.lakestream.testkit.TestCertificates;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The store against a real Oxia server serving TLS with a certificate of a private CA. The Oxia Java client checks
 * the server's certificate against the JVM's trust store only, so the test names its CA's trust store in
 * {@code javax.net.ssl.trustStore} while it connects (the JDK reads that property anew for each new trust manager),
 * as an operator does with {@code -Djavax.net.ssl.trustStore} on the broker.
 */
class OxiaTlsTest {

    @TempDir
    static Path dir;

    private static OxiaServer server;
    private static TestCertificates certs;
    private static Path trustStore;

    @BeforeAll
    static void start() throws Exception {
        certs = TestCertificates.create(dir);
        Path cert = certs.writeServerPem(dir.resolve("oxia.pem"), dir.resolve("oxia.key"));
        trustStore = certs.writeTrustStore(dir.resolve("trust.p12"));
        server = OxiaServer.create("oxia-tls")
                .withTls(cert, dir.resolve("oxia.key"))
                .start();
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    /** For the connections that must fail: they fail at the connect timeout, kept short. */
    private static OxiaMetadataStoreConfig config(boolean tls) {
        return OxiaMetadataStoreConfig.of(server.serviceAddress())
                .withTls(tls)
                .withConnectTimeout(Duration.ofSeconds(4));
    }

    @Test
    void withTlsAndTheCaInTheTrustStoreTheStoreWorks() {
        String before = System.getProperty("javax.net.ssl.trustStore");
        String beforePassword = System.getProperty("javax.net.ssl.trustStorePassword");
        System.setProperty("javax.net.ssl.trustStore", trustStore.toString());
        System.setProperty("javax.net.ssl.trustStorePassword", certs.password());
        // The default connect timeout: the first TLS connection of a JVM loads the TLS provider, seconds on a busy
        // machine.
        try (OxiaMetadataStore store = OxiaMetadataStore.open(
                OxiaMetadataStoreConfig.of(server.serviceAddress()).withTls(true))) {
            join(store.put("/tls/a", bytes("over tls")));
            assertThat(join(store.get("/tls/a")))
                    .hasValueSatisfying(r -> assertThat(new String(r.value(), java.nio.charset.StandardCharsets.UTF_8))
                            .isEqualTo("over tls"));
            assertThat(store.config().address()).startsWith("oxia+tls://");
        } finally {
            restore("javax.net.ssl.trustStore", before);
            restore("javax.net.ssl.trustStorePassword", beforePassword);
        }
    }

    @Test
    void withoutTlsAgainstATlsServerOpeningFailsNamingTheSetting() {
        assertThatThrownBy(() -> OxiaMetadataStore.open(config(false)))
                .isInstanceOf(MetadataStoreUnavailableException.class)
                .hasMessageContaining(server.serviceAddress())
                .hasMessageContaining("lakestream.oxia.tls=false");
    }

    @Test
    void aServerCertificateTheTrustStoreDoesNotVouchForIsRefused() {
        // The JVM's default trust store (the JDK's public CAs) does not hold the test CA.
        assertThatThrownBy(() -> OxiaMetadataStore.open(config(true)))
                .isInstanceOf(MetadataStoreUnavailableException.class)
                .hasMessageContaining(server.serviceAddress())
                .hasMessageContaining("lakestream.oxia.tls=true");
    }

    private static void restore(String key, String value) {
        if (value == null) {
            System.clearProperty(key);
        } else {
            System.setProperty(key, value);
        }
    }
}
