package dev.lakestream.pulsar.compaction;

import dev.lakestream.core.log.RemoteTestStores;
import dev.lakestream.core.metadata.oxia.OxiaMetadataStore;
import dev.lakestream.core.metadata.oxia.OxiaMetadataStoreConfig;
import dev.lakestream.core.objectstore.s3.S3ObjectStore;
import dev.lakestream.testkit.OxiaServer;
import dev.lakestream.testkit.S3ProxyServer;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** {@link CompactionServiceTest} on real servers: a fresh S3Proxy bucket per test and a real Oxia server. */
class RemoteCompactionServiceTest extends CompactionServiceTest {

    private static S3ProxyServer s3;
    private static OxiaServer oxia;

    @BeforeAll
    static void startServers() {
        s3 = S3ProxyServer.start();
        oxia = OxiaServer.create("compaction").start();
    }

    @AfterAll
    static void stopServers() {
        try {
            if (oxia != null) {
                oxia.close();
            }
        } finally {
            if (s3 != null) {
                s3.close();
            }
        }
    }

    @Override
    protected Stores openStores(Path scratch) {
        S3ObjectStore objects = RemoteTestStores.freshBucket(s3);
        return new Stores(
                objects,
                OxiaMetadataStore.open(new OxiaMetadataStoreConfig(
                        oxia.serviceAddress(),
                        OxiaMetadataStoreConfig.DEFAULT_NAMESPACE,
                        Duration.ofSeconds(20),
                        OxiaMetadataStoreConfig.DEFAULT_SESSION_TIMEOUT,
                        Duration.ofSeconds(20))));
    }
}
