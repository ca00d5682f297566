package dev.lakestream.pulsar.conformance;

import java.nio.file.Path;

/** {@link BrokerPathConformanceTest} on the embedded pair: filesystem objects + embedded metadata. */
class EmbeddedBrokerPathConformanceTest extends BrokerPathConformanceTest {

    @Override
    protected Stores openStores(Path scratch) {
        return EmbeddedStores.open(scratch);
    }
}
