package dev.lakestream.pulsar.conformance;

import dev.lakestream.core.log.RemoteTestStores;
import dev.lakestream.core.metadata.oxia.OxiaMetadataStore;
import dev.lakestream.core.metadata.oxia.OxiaMetadataStoreConfig;
import dev.lakestream.core.objectstore.s3.S3ObjectStore;
import dev.lakestream.testkit.RemoteStores;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One real S3Proxy server and one real Oxia server shared by every {@code Remote…Test} class of the run (started by
 * the first class that needs them, stopped when the whole run ends), so the remote variants pay the server start-up
 * once. Tests stay isolated: each gets a fresh bucket and a fresh Oxia client, and managed-ledger names are unique
 * per test.
 */
public final class SharedRemoteServers implements BeforeAllCallback {

    private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(SharedRemoteServers.class);
    private static volatile Servers servers;

    @Override
    public void beforeAll(ExtensionContext context) {
        servers = context.getRoot().getStore(NS).getOrComputeIfAbsent("servers", k -> Servers.start(), Servers.class);
        if (servers.failure != null) {
            throw new IllegalStateException(
                    "the Oxia client cannot talk to the test Oxia server: " + servers.failure, servers.failure);
        }
    }

    private static OxiaMetadataStoreConfig oxiaConfig(String address) {
        return new OxiaMetadataStoreConfig(
                address,
                OxiaMetadataStoreConfig.DEFAULT_NAMESPACE,
                Duration.ofSeconds(20),
                OxiaMetadataStoreConfig.DEFAULT_SESSION_TIMEOUT,
                Duration.ofSeconds(20));
    }

    @SuppressWarnings("deprecation")
    static final class Servers implements ExtensionContext.Store.CloseableResource {
        final RemoteStores stores;
        private boolean closed;

        private Servers(RemoteStores stores) {
            this.stores = stores;
        }

        /** Why the servers cannot be used (e.g. the Oxia client does not work on this classpath), or null. */
        volatile Throwable failure;

        static Servers start() {
            Servers servers = new Servers(RemoteStores.start("ml-conformance"));
            // Probe the Oxia client once, so a broken client fails every remote test at once instead of
            // letting each of them hang in connection retries.
            try (OxiaMetadataStore probe =
                    OxiaMetadataStore.open(oxiaConfig(servers.stores.oxia().serviceAddress()))) {
                probe.get("/conformance-probe").get(30, TimeUnit.SECONDS);
            } catch (Throwable t) {
                servers.failure = t;
            }
            return servers;
        }

        @Override
        public synchronized void close() {
            if (closed) {
                return;
            }
            closed = true;
            stores.close();
        }
    }

    /** A fresh bucket on the shared S3Proxy and a fresh client of the shared Oxia server. */
    static ManagedLedgerConformanceTest.Stores openStores() {
        Servers s = servers;
        if (s == null) {
            throw new IllegalStateException("register SharedRemoteServers with @ExtendWith on the test class");
        }
        S3ObjectStore objects = RemoteTestStores.freshBucket(s.stores.s3());
        try {
            return new ManagedLedgerConformanceTest.Stores(
                    objects, OxiaMetadataStore.open(oxiaConfig(s.stores.oxia().serviceAddress())));
        } catch (RuntimeException e) {
            objects.close();
            throw e;
        }
    }
}
