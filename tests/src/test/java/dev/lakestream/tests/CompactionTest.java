package dev.lakestream.tests;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link CompactionScenarios} on the broker {@code bin/run-broker} starts (embedded stores), with
 * {@code compactionServiceFactoryClassName=dev.lakestream.pulsar.compaction.LakestreamCompactionServiceFactory}.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class CompactionTest extends CompactionScenarios {

    @RegisterExtension
    static final PulsarBrokerExtension BROKER = configure(PulsarBrokerExtension.embedded());

    @Override
    PulsarBrokerExtension broker() {
        return BROKER;
    }
}
