package dev.lakestream.pulsar.conformance;

import java.nio.file.Path;

/** {@link AddReadConformanceTest} on the embedded pair: filesystem objects + embedded metadata. */
class EmbeddedAddReadConformanceTest extends AddReadConformanceTest {

    @Override
    protected Stores openStores(Path scratch) {
        return EmbeddedStores.open(scratch);
    }
}
