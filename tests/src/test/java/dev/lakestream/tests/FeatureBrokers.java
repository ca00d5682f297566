package dev.lakestream.tests;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.Properties;

/** The brokers of the feature tests: the diskless configurations, as users run them. */
final class FeatureBrokers {

    private FeatureBrokers() {
    }

    static PulsarBrokerExtension onS3ProxyAndOxia() {
        return withSchemaStorage(PulsarBrokerExtension.onS3ProxyAndOxia(), "broker-diskless.conf");
    }

    static PulsarBrokerExtension embedded() {
        return withSchemaStorage(PulsarBrokerExtension.embedded(), "broker-diskless-embedded.conf");
    }

    /**
     * System topics carry an Avro schema. While the configuration file leaves {@code schemaRegistryStorageClassName}
     * at Pulsar's BookKeeper storage (which cannot store a schema without bookies), the test broker keeps schemas in
     * memory; once the file names a schema storage, that one is tested.
     */
    private static PulsarBrokerExtension withSchemaStorage(PulsarBrokerExtension broker, String confName) {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(PulsarBrokerExtension.projectDir().resolve("conf").resolve(confName))) {
            p.load(r);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        String configured = p.getProperty("schemaRegistryStorageClassName", "").trim();
        if (configured.isEmpty() || configured.contains("Bookkeeper")) {
            broker.config("schemaRegistryStorageClassName", InMemorySchemaStorageFactory.class.getName());
        }
        return broker;
    }
}
