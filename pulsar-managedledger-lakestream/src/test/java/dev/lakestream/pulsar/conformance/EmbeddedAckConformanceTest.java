package dev.lakestream.pulsar.conformance;

import java.nio.file.Path;

/** {@link AckConformanceTest} on the embedded pair: filesystem objects + embedded metadata. */
class EmbeddedAckConformanceTest extends AckConformanceTest {

    @Override
    protected Stores openStores(Path scratch) {
        return EmbeddedStores.open(scratch);
    }
}
