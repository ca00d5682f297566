package dev.lakestream.testkit;

import java.net.URI;
import java.nio.file.Path;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Starts a real {@link S3ProxyServer} before the tests of a class and stops it after them. Register it on
 * a static field:
 *
 * <pre>{@code
 * @RegisterExtension
 * static final S3ProxyExtension S3 = new S3ProxyExtension();
 *
 * @Test
 * void test() {
 *     String bucket = S3.createBucket(); // a fresh bucket for this test
 *     ... S3.endpoint(), S3.accessKey(), S3.secretKey(), path-style access ...
 * }
 * }</pre>
 */
public final class S3ProxyExtension implements BeforeAllCallback, AfterAllCallback {

    private S3ProxyServer server;

    @Override
    public void beforeAll(ExtensionContext context) {
        if (server == null) {
            server = S3ProxyServer.start();
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (server != null) {
            server.close();
            server = null;
        }
    }

    /** The running server (for restarts and direct access to its files). */
    public S3ProxyServer server() {
        if (server == null) {
            throw new IllegalStateException(
                    "S3ProxyExtension is not started: register it on a static field " + "with @RegisterExtension");
        }
        return server;
    }

    public URI endpoint() {
        return server().endpoint();
    }

    public String accessKey() {
        return server().accessKey();
    }

    public String secretKey() {
        return server().secretKey();
    }

    public String region() {
        return server().region();
    }

    /** Creates a bucket with a fresh name and returns it. */
    public String createBucket() {
        return server().createBucket();
    }

    /** The file that holds {@code key} of {@code bucket} in the server's filesystem backend. */
    public Path objectFile(String bucket, String key) {
        return server().objectFile(bucket, key);
    }
}
