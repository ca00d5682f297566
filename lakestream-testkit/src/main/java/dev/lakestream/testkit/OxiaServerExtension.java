package dev.lakestream.testkit;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * JUnit 5 extension running a real {@link OxiaServer}. Register it on a static field to get one server per test
 * class (started before all tests, stopped and deleted after them):
 *
 * <pre>{@code
 * @RegisterExtension
 * static final OxiaServerExtension OXIA = new OxiaServerExtension();
 * ... OxiaMetadataStoreConfig.of(OXIA.serviceAddress()) ...
 * }</pre>
 *
 * On an instance field it starts a fresh server for each test instead.
 */
public final class OxiaServerExtension
        implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {

    private final int shards;
    private OxiaServer server;
    private boolean perClass;

    /** One shard in the default namespace. */
    public OxiaServerExtension() {
        this(1);
    }

    public OxiaServerExtension(int shards) {
        if (shards < 1) {
            throw new IllegalArgumentException("shards must be >= 1, got " + shards);
        }
        this.shards = shards;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        perClass = true;
        start(context);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        stop();
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        if (!perClass) {
            start(context);
        }
    }

    @Override
    public void afterEach(ExtensionContext context) {
        if (!perClass) {
            stop();
        }
    }

    private synchronized void start(ExtensionContext context) {
        String name = context.getTestClass().map(Class::getSimpleName).orElse("oxia")
                + context.getTestMethod().map(m -> "-" + m.getName()).orElse("");
        server = OxiaServer.create(name).withShards(shards).start();
    }

    private synchronized void stop() {
        if (server != null) {
            server.close();
            server = null;
        }
    }

    /** The running server. */
    public synchronized OxiaServer server() {
        if (server == null) {
            throw new IllegalStateException("The Oxia server is not running (register the extension with "
                    + "@RegisterExtension on a static field, and use it from tests)");
        }
        return server;
    }

    /** {@code host:port} of the server's public endpoint. */
    public String serviceAddress() {
        return server().serviceAddress();
    }

    /** Restarts the server on the same port with the same data. */
    public void restart() {
        server().restart();
    }
}
