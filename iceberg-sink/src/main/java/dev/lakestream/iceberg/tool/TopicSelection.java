package dev.lakestream.iceberg.tool;

import dev.lakestream.core.config.ConfigException;
import dev.lakestream.iceberg.TopicRef;
import java.util.ArrayList;
import java.util.List;

/**
 * Which topics a standalone materializer takes (key {@value #KEY}): {@code all} (the default), or a comma-separated
 * list of namespaces ({@code tenant/namespace}) and topics ({@code persistent://tenant/namespace/topic}; a
 * partitioned topic's name takes all its partitions). Pulsar's system topics are left out unless named.
 *
 * <p>The namespace and topic property {@code lakestream.iceberg=enabled} lives in Pulsar's own metadata store (a
 * broker's RocksDB, ZooKeeper or Oxia), which the tool does not open: the selection is by this key only.
 */
public record TopicSelection(boolean all, List<String> namespaces, List<String> topics) {

    public static final String KEY = "lakestream.materialize.topics";

    public TopicSelection {
        namespaces = List.copyOf(namespaces);
        topics = List.copyOf(topics);
    }

    public static final TopicSelection ALL = new TopicSelection(true, List.of(), List.of());

    public static TopicSelection parse(String value) {
        if (value == null || value.isBlank() || value.trim().equals("all")) {
            return ALL;
        }
        List<String> namespaces = new ArrayList<>();
        List<String> topics = new ArrayList<>();
        for (String raw : value.split(",", -1)) {
            String item = raw.trim();
            if (item.isEmpty()) {
                continue;
            }
            if (item.startsWith("persistent://")) {
                try {
                    TopicRef.parse(item);
                } catch (IllegalArgumentException e) {
                    throw new ConfigException(KEY, value, e.getMessage());
                }
                topics.add(item);
            } else if (item.split("/", -1).length == 2 && !item.startsWith("/") && !item.endsWith("/")) {
                namespaces.add(item);
            } else {
                throw new ConfigException(
                        KEY,
                        value,
                        "'" + item + "' is neither tenant/namespace nor"
                                + " persistent://tenant/namespace/topic (nor 'all')");
            }
        }
        if (namespaces.isEmpty() && topics.isEmpty()) {
            throw new ConfigException(KEY, value, "names no namespace or topic");
        }
        return new TopicSelection(false, namespaces, topics);
    }

    /**
     * Whether the topic partition is selected. Pulsar's system topics (local names starting with {@code __}, such
     * as {@code __change_events}, and transaction pending-ack topics) are taken only when named.
     */
    public boolean includes(TopicRef topic) {
        // The topic (all partitions) or exactly this partition.
        if (topics.contains(topic.topicName()) || topics.contains(topic.toString())) {
            return true;
        }
        if (isSystemTopic(topic)) {
            return false;
        }
        return all || namespaces.contains(topic.tenant() + "/" + topic.namespace());
    }

    static boolean isSystemTopic(TopicRef topic) {
        return topic.topic().startsWith("__") || topic.topic().endsWith("__transaction_pending_ack");
    }

    @Override
    public String toString() {
        if (all) {
            return "all";
        }
        List<String> items = new ArrayList<>(namespaces);
        items.addAll(topics);
        return String.join(",", items);
    }
}
