package dev.lakestream.tests.faults;

import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.pulsar.client.admin.PulsarAdmin;
import org.apache.pulsar.client.api.PulsarClient;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The set-up every fault test class shares, registered as a static {@code @RegisterExtension} field: before the
 * class, a {@link FaultCluster} with the scenario namespaces and a client of its brokers; after it, the class's
 * {@link FaultReport} written into {@code docs/reliability.md}, then the client and the cluster closed.
 */
final class FaultClusterExtension implements BeforeAllCallback, AfterAllCallback {

    private final String name;
    private final int brokers;
    private final FaultReport report;
    private final Map<String, String> overrides = new LinkedHashMap<>();
    private FaultCluster cluster;
    private PulsarClient client;

    FaultClusterExtension(String name, int brokers, FaultReport report) {
        this.name = name;
        this.brokers = brokers;
        this.report = report;
    }

    /** A broker setting over the fault suite's (before the class starts). */
    FaultClusterExtension config(String key, String value) {
        overrides.put(key, value);
        return this;
    }

    FaultCluster cluster() {
        return cluster;
    }

    /** A client of every broker, closed after the class. */
    PulsarClient client() {
        return client;
    }

    FaultReport report() {
        return report;
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        cluster = FaultCluster.start(name, brokers, overrides);
        client = cluster.client();
        try (PulsarAdmin admin = cluster.admin()) {
            FaultScenario.createNamespaces(admin);
        }
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        try {
            report.write();
        } finally {
            try {
                if (client != null) {
                    client.close();
                }
            } finally {
                if (cluster != null) {
                    cluster.close();
                }
            }
        }
    }
}
