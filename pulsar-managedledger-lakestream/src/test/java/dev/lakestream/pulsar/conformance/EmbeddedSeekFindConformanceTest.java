package dev.lakestream.pulsar.conformance;

import java.nio.file.Path;

/** {@link SeekFindConformanceTest} on the embedded pair: filesystem objects + embedded metadata. */
class EmbeddedSeekFindConformanceTest extends SeekFindConformanceTest {

    @Override
    protected Stores openStores(Path scratch) {
        return EmbeddedStores.open(scratch);
    }
}
