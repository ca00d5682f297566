package dev.lakestream.handler.iceberg;

import dev.lakestream.iceberg.HostConfig;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.pulsar.broker.PulsarService;
import org.apache.pulsar.common.naming.TopicName;

/**
 * Whether a topic partition is materialized: its topic property, else its partitioned topic's, else its namespace's,
 * else the broker's default ({@link HostConfig#topicsEnabledByDefault()}). Reads the broker's (cached) metadata
 * asynchronously. The one place the decision is made.
 */
final class TopicEnablement {

    /**
     * The namespace or topic property that enables ({@code enabled}) or disables ({@code disabled}) materialization
     * of a topic: {@code pulsar-admin namespaces set-property NS -k lakestream.iceberg -v enabled}.
     */
    static final String PROPERTY = "lakestream.iceberg";

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
        String own = topicProperties.get(PROPERTY);
        CompletableFuture<String> topicProperty = own != null || !name.isPartitioned()
                ? CompletableFuture.completedFuture(own)
                : pulsar.getPulsarResources()
                        .getNamespaceResources()
                        .getPartitionedTopicResources()
                        .getPartitionedTopicMetadataAsync(TopicName.get(name.getPartitionedTopicName()))
                        .thenApply(m -> m.map(p -> p.properties)
                                .map(p -> p.get(PROPERTY))
                                .orElse(null));
        CompletableFuture<String> namespaceProperty = pulsar.getPulsarResources()
                .getNamespaceResources()
                .getPoliciesAsync(name.getNamespaceObject())
                .thenApply(p -> p.map(policies -> policies.properties)
                        .map(properties -> properties.get(PROPERTY))
                        .orElse(null));
        return topicProperty.thenCombine(
                namespaceProperty,
                (topic, namespace) -> decide(topic, namespace, host.topicsEnabledByDefault(), name.toString()));
    }

    /**
     * The topic's property, else the namespace's, else {@code byDefault}.
     *
     * @param topicProperty the topic's {@code lakestream.iceberg} property, or null
     * @param namespaceProperty the namespace's, or null
     * @throws IllegalArgumentException naming the property and {@code where} when a value is neither {@code enabled}
     *     nor {@code disabled}
     */
    static boolean decide(String topicProperty, String namespaceProperty, boolean byDefault, String where) {
        Boolean topic = parse(topicProperty, "topic property", where);
        if (topic != null) {
            return topic;
        }
        Boolean ns = parse(namespaceProperty, "namespace property", where);
        return ns != null ? ns : byDefault;
    }

    private static Boolean parse(String value, String what, String where) {
        if (value == null) {
            return null;
        }
        return switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "enabled", "true" -> true;
            case "disabled", "false" -> false;
            default ->
                throw new IllegalArgumentException("the " + what + " " + PROPERTY + " of " + where + " is '" + value
                        + "': must be 'enabled' or 'disabled'");
        };
    }
}
