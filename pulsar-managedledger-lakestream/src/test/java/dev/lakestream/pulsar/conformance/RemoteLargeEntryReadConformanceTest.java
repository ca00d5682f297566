package dev.lakestream.pulsar.conformance;

import java.nio.file.Path;
import org.junit.jupiter.api.extension.ExtendWith;

/** {@link LargeEntryReadConformanceTest} on the remote pair: S3Proxy objects + the real Oxia server. */
@ExtendWith(SharedRemoteServers.class)
class RemoteLargeEntryReadConformanceTest extends LargeEntryReadConformanceTest {

    @Override
    protected Stores openStores(Path scratch) {
        return SharedRemoteServers.openStores();
    }
}
