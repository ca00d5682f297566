package dev.lakestream.pulsar.conformance;

import java.nio.file.Path;

/** {@link CursorConformanceTest} on the embedded pair: filesystem objects + embedded metadata. */
class EmbeddedCursorConformanceTest extends CursorConformanceTest {

    @Override
    protected Stores openStores(Path scratch) {
        return EmbeddedStores.open(scratch);
    }
}
