package dev.lakestream.pulsar.conformance;

import java.nio.file.Path;

/** {@link LifecycleConformanceTest} on the embedded pair: filesystem objects + embedded metadata. */
class EmbeddedLifecycleConformanceTest extends LifecycleConformanceTest {

    @Override
    protected Stores openStores(Path scratch) {
        return EmbeddedStores.open(scratch);
    }
}
