package dev.lakestream.tests;

import static dev.lakestream.tests.RoundTrips.expected;
import static dev.lakestream.tests.RoundTrips.produce;
import static dev.lakestream.tests.RoundTrips.receive;
import static dev.lakestream.tests.RoundTrips.subscribe;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.apache.pulsar.client.api.Consumer;
import org.apache.pulsar.client.api.PulsarClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The production configuration ({@code conf/broker-diskless.conf}) against real servers: the objects in a bucket of
 * S3Proxy, all metadata (Pulsar's and Lakestream's) in a real Oxia server, nothing on the broker's disk.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class BrokerOnS3ProxyAndOxiaTest {

    @RegisterExtension
    static final PulsarBrokerExtension BROKER = PulsarBrokerExtension.onS3ProxyAndOxia();

    @Test
    void startsWithItsMetadataInOxia() throws Exception {
        assertThat(BROKER.pulsar()
                        .getManagedLedgerStorage()
                        .getDefaultStorageClass()
                        .getName())
                .isEqualTo("lakestream");
        assertThat(BROKER.configuration().getMetadataStoreUrl()).startsWith("oxia://");
        assertThat(BROKER.admin().namespaces().getNamespaces("public")).contains("public/default");
    }

    @Test
    void persistentTopicRoundTripAndRestart() throws Exception {
        String topic = "persistent://public/default/s3-oxia";
        try (PulsarClient client = BROKER.newClient()) {
            produce(client, topic, "s", 20);
            try (Consumer<byte[]> consumer = subscribe(client, topic, "sub")) {
                assertThat(receive(consumer, 8)).isEqualTo(expected("s", 0, 8));
            }
        }
        // The entries are objects in the bucket.
        assertThat(RoundTrips.filesUnder(BROKER.s3().dataDir().resolve(BROKER.bucket())))
                .isNotEmpty();

        BROKER.restart();

        try (PulsarClient client = BROKER.newClient()) {
            try (Consumer<byte[]> consumer = subscribe(client, topic, "sub")) {
                assertThat(receive(consumer, 12)).isEqualTo(expected("s", 8, 20));
            }
            try (Consumer<byte[]> consumer = subscribe(client, topic, "fresh")) {
                assertThat(receive(consumer, 20)).isEqualTo(expected("s", 0, 20));
            }
        }
    }
}
