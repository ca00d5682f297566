package dev.lakestream.pulsar.conformance;

import java.nio.file.Path;

/** {@link LargeEntryReadConformanceTest} on the embedded pair: filesystem objects + embedded metadata. */
class EmbeddedLargeEntryReadConformanceTest extends LargeEntryReadConformanceTest {

    @Override
    protected Stores openStores(Path scratch) {
        return EmbeddedStores.open(scratch);
    }
}
