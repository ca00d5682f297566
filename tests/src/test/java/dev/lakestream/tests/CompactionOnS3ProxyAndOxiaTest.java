package dev.lakestream.tests;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link CompactionScenarios} on the production configuration: S3Proxy objects, Oxia metadata. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class CompactionOnS3ProxyAndOxiaTest extends CompactionScenarios {

    @RegisterExtension
    static final PulsarBrokerExtension BROKER = configure(PulsarBrokerExtension.onS3ProxyAndOxia());

    @Override
    PulsarBrokerExtension broker() {
        return BROKER;
    }
}
