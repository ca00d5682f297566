package dev.lakestream.pulsar.conformance;

import java.nio.file.Path;

/** {@link ReopenCrashConformanceTest} on the embedded pair: filesystem objects + embedded metadata. */
class EmbeddedReopenCrashConformanceTest extends ReopenCrashConformanceTest {

    @Override
    protected Stores openStores(Path scratch) {
        return EmbeddedStores.open(scratch);
    }
}
