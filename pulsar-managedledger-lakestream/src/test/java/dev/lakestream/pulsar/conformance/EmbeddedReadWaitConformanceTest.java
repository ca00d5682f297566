package dev.lakestream.pulsar.conformance;

import java.nio.file.Path;

/** {@link ReadWaitConformanceTest} on the embedded pair: filesystem objects + embedded metadata. */
class EmbeddedReadWaitConformanceTest extends ReadWaitConformanceTest {

    @Override
    protected Stores openStores(Path scratch) {
        return EmbeddedStores.open(scratch);
    }
}
