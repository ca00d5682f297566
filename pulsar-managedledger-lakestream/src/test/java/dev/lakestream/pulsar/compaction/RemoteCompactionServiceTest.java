package dev.lakestream.pulsar.compaction;

import dev.lakestream.core.log.RemoteTestStores;
import dev.lakestream.core.metadata.oxia.OxiaMetadataStore;
import dev.lakestream.core.metadata.oxia.OxiaMetadataStoreConfig;
import dev.lakestream.core.objectstore.s3.S3ObjectStore;
import dev.lakestream.testkit.RemoteStores;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** {@link CompactionServiceTest} on real servers: a fresh S3Proxy bucket per test and a real Oxia server. */
class RemoteCompactionServiceTest extends CompactionServiceTest {

    private static RemoteStores remote;

    @BeforeAll
    static void startServers() {
        remote = RemoteStores.start("compaction");
    }

    @AfterAll
    static void stopServers() {
        if (remote != null) {
            remote.close();
        }
    }

    @Override
    protected Stores openStores(Path scratch) {
        S3ObjectStore objects = RemoteTestStores.freshBucket(remote.s3());
        return new Stores(
                objects,
                OxiaMetadataStore.open(new OxiaMetadataStoreConfig(
                        remote.oxia().serviceAddress(),
                        OxiaMetadataStoreConfig.DEFAULT_NAMESPACE,
                        Duration.ofSeconds(20),
                        OxiaMetadataStoreConfig.DEFAULT_SESSION_TIMEOUT,
                        Duration.ofSeconds(20))));
    }
}
