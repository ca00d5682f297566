package dev.lakestream.tests;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A {@link BrokerCluster} shared by a test class, registered as a static {@code @RegisterExtension} field: started
 * before the class (before its {@code @BeforeAll} methods), closed after it.
 */
public final class BrokerClusterExtension implements BeforeAllCallback, AfterAllCallback {

    private final String name;
    private final int brokers;
    private final Map<String, String> overrides = new LinkedHashMap<>();
    private BrokerCluster cluster;

    public BrokerClusterExtension(String name, int brokers) {
        this.name = name;
        this.brokers = brokers;
    }

    /** A broker setting over the cluster's (before the class starts). */
    public BrokerClusterExtension config(String key, String value) {
        overrides.put(key, value);
        return this;
    }

    public BrokerCluster cluster() {
        return cluster;
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        cluster = BrokerCluster.start(name, brokers, overrides);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (cluster != null) {
            cluster.close();
        }
    }
}
