package dev.lakestream.pulsar.compaction;

import dev.lakestream.core.Lakestream;
import dev.lakestream.core.StreamLog;
import dev.lakestream.core.catalog.StreamInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The compacted streams of one topic in the Lakestream catalog: namespace {@code pulsar-compacted/<managed ledger
 * name>}, one stream per compaction run named {@code run-<epoch ms>-<random>}, so a topic's streams can be listed and
 * every one but the committed one deleted.
 */
final class CompactedStreams {

    private static final Logger LOG = LoggerFactory.getLogger(CompactedStreams.class);

    static final String NAMESPACE_PREFIX = "pulsar-compacted/";

    private final Lakestream log;
    private final String namespace;

    CompactedStreams(Lakestream log, String managedLedgerName) {
        this.log = log;
        this.namespace = NAMESPACE_PREFIX + managedLedgerName;
    }

    String namespace() {
        return namespace;
    }

    /** A new, empty stream for a run. */
    CompletableFuture<StreamLog> create(String topic) {
        String name = "run-" + System.currentTimeMillis() + "-"
                + UUID.randomUUID().toString().substring(0, 8);
        return log.catalog().create(namespace, name, Map.of("topic", topic)).thenApply(log::stream);
    }

    StreamLog open(long streamId) {
        return log.stream(streamId);
    }

    /** Deletes every stream of the topic except {@code keep} (-1: all); returns how many were deleted. */
    CompletableFuture<Integer> deleteAllBut(long keep) {
        return log.catalog().list(namespace).thenCompose(streams -> {
            List<CompletableFuture<Void>> deletes = new ArrayList<>();
            for (StreamInfo s : streams) {
                if (s.id() != keep) {
                    deletes.add(delete(s));
                }
            }
            return CompletableFuture.allOf(deletes.toArray(CompletableFuture[]::new))
                    .thenApply(v -> deletes.size());
        });
    }

    private CompletableFuture<Void> delete(StreamInfo s) {
        // Catalog tombstone first: the stream is then unreachable by name; its index and objects go next.
        return log.catalog()
                .delete(s.namespace(), s.name())
                .thenCompose(t -> log.stream(s).deleteData())
                .whenComplete((v, e) -> {
                    if (e != null) {
                        LOG.warn("Could not delete compacted stream {} (id {})", s.fullName(), s.id(), e);
                    } else {
                        LOG.debug("Deleted compacted stream {} (id {})", s.fullName(), s.id());
                    }
                });
    }
}
