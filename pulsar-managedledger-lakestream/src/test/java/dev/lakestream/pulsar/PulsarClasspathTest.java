package dev.lakestream.pulsar;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import org.apache.pulsar.broker.ServiceConfiguration;
import org.apache.pulsar.broker.storage.ManagedLedgerStorage;
import org.apache.pulsar.common.configuration.PulsarConfigurationLoader;
import org.junit.jupiter.api.Test;

/**
 * Guards the dependency alignment in the root pom: Pulsar 5.0.1 publishes poms without version
 * management, and a misaligned Jackson or Netty shows up as a NoClassDefFoundError when the broker's
 * configuration is built, long before any topic is served.
 */
class PulsarClasspathTest {

    @Test
    void brokerConfigurationLoadsWithOurStorageClassName() throws Exception {
        String conf = """
                clusterName=test
                metadataStoreUrl=memory:local
                managedLedgerStorageClassName=dev.lakestream.pulsar.SomeStorage
                """;
        ServiceConfiguration config = PulsarConfigurationLoader.create(
                new ByteArrayInputStream(conf.getBytes(StandardCharsets.UTF_8)), ServiceConfiguration.class);

        assertThat(config.getClusterName()).isEqualTo("test");
        assertThat(config.getManagedLedgerStorageClassName()).isEqualTo("dev.lakestream.pulsar.SomeStorage");
    }

    @Test
    void storageSpiAndOxiaClientAreTheBrokersOwn() throws Exception {
        assertThat(ManagedLedgerStorage.class.getMethod("getStorageClasses")).isNotNull();
        Class<?> oxia = Class.forName("io.oxia.client.api.OxiaClientBuilder");
        String jar = oxia.getProtectionDomain().getCodeSource().getLocation().getPath();
        assertThat(jar).as("oxia-client must be the version Pulsar 5.0.1 ships").contains("oxia-client-api-0.9.5");
    }
}
