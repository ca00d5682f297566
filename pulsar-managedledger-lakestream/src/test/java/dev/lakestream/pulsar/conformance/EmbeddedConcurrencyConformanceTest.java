package dev.lakestream.pulsar.conformance;

import java.nio.file.Path;

/** {@link ConcurrencyConformanceTest} on the embedded pair: filesystem objects + embedded metadata. */
class EmbeddedConcurrencyConformanceTest extends ConcurrencyConformanceTest {

    @Override
    protected Stores openStores(Path scratch) {
        return EmbeddedStores.open(scratch);
    }
}
