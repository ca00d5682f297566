package dev.lakestream.iceberg;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A persistent topic (or one partition of it) as the materializer sees it.
 *
 * @param tenant the tenant
 * @param namespace the namespace (local name, without the tenant)
 * @param topic the topic's local name, without any {@code -partition-N} suffix
 * @param partition the partition index, or {@code -1} for a non-partitioned topic
 */
public record TopicRef(String tenant, String namespace, String topic, int partition) {

    private static final Pattern PARTITION = Pattern.compile("^(.*)-partition-(\\d+)$");

    public TopicRef {
        Objects.requireNonNull(tenant, "tenant");
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(topic, "topic");
    }

    /**
     * The topic of a managed-ledger name, {@code tenant/namespace/persistent/<url-encoded local name>} (the stream
     * name of docs/layout.md §8).
     */
    public static TopicRef fromManagedLedgerName(String name) {
        String[] parts = name.split("/", 4);
        if (parts.length != 4 || !parts[2].equals("persistent")) {
            throw new IllegalArgumentException("'" + name + "' is not a managed-ledger name of a persistent topic"
                    + " (tenant/namespace/persistent/topic)");
        }
        return fromLocalName(parts[0], parts[1], URLDecoder.decode(parts[3], StandardCharsets.UTF_8));
    }

    /** A topic by its full name, {@code persistent://tenant/namespace/topic}. */
    public static TopicRef parse(String fullName) {
        String prefix = "persistent://";
        if (!fullName.startsWith(prefix)) {
            throw new IllegalArgumentException(
                    "'" + fullName + "' is not a persistent topic name" + " (persistent://tenant/namespace/topic)");
        }
        String[] parts = fullName.substring(prefix.length()).split("/", 3);
        if (parts.length != 3) {
            throw new IllegalArgumentException("'" + fullName + "' is not persistent://tenant/namespace/topic");
        }
        return fromLocalName(parts[0], parts[1], parts[2]);
    }

    private static TopicRef fromLocalName(String tenant, String namespace, String local) {
        Matcher m = PARTITION.matcher(local);
        if (m.matches()) {
            return new TopicRef(tenant, namespace, m.group(1), Integer.parseInt(m.group(2)));
        }
        return new TopicRef(tenant, namespace, local, -1);
    }

    /** Pulsar's schema id: {@code tenant/namespace/topic} (partitions share their topic's schema). */
    public String schemaId() {
        return tenant + "/" + namespace + "/" + topic;
    }

    /** {@code persistent://tenant/namespace/topic} (the partitioned topic for a partition). */
    public String topicName() {
        return "persistent://" + schemaId();
    }

    @Override
    public String toString() {
        return partition < 0 ? topicName() : topicName() + "-partition-" + partition;
    }
}
