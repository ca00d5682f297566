package dev.lakestream.handler.iceberg;

import dev.lakestream.iceberg.HostConfig;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.pulsar.broker.PulsarService;
import org.apache.pulsar.common.naming.TopicName;

/**
 * Whether a topic partition is materialized: its topic property, else its partitioned topic's, else its namespace's,
 * else the broker's default ({@link HostConfig#materializes}). Reads the broker's (cached) metadata asynchronously.
 */
final class TopicEnablement {

    private final PulsarService pulsar;
    private final HostConfig host;

    TopicEnablement(PulsarService pulsar, HostConfig host) {
        this.pulsar = pulsar;
        this.host = host;
    }

    /**
     * @param topicProperties the managed ledger's properties (where the topic's own properties live)
     * @return the decision; fails with {@link IllegalArgumentException} when a property holds a bad value, or with
     *     the metadata store's error when the properties cannot be read
     */
    CompletableFuture<Boolean> enabled(TopicName name, Map<String, String> topicProperties) {
        String own = topicProperties.get(HostConfig.PROPERTY);
        CompletableFuture<String> topicProperty = own != null || !name.isPartitioned()
                ? CompletableFuture.completedFuture(own)
                : pulsar.getPulsarResources()
                        .getNamespaceResources()
                        .getPartitionedTopicResources()
                        .getPartitionedTopicMetadataAsync(TopicName.get(name.getPartitionedTopicName()))
                        .thenApply(m -> m.map(p -> p.properties)
                                .map(p -> p.get(HostConfig.PROPERTY))
                                .orElse(null));
        CompletableFuture<String> namespaceProperty = pulsar.getPulsarResources()
                .getNamespaceResources()
                .getPoliciesAsync(name.getNamespaceObject())
                .thenApply(p -> p.map(policies -> policies.properties)
                        .map(properties -> properties.get(HostConfig.PROPERTY))
                        .orElse(null));
        return topicProperty.thenCombine(
                namespaceProperty, (topic, namespace) -> host.materializes(topic, namespace, name.toString()));
    }
}
