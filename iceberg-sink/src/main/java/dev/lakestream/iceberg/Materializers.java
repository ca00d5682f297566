package dev.lakestream.iceberg;

import dev.lakestream.core.Lakestream;
import dev.lakestream.core.catalog.StreamInfo;
import dev.lakestream.iceberg.schema.RegistrySchemaSource;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.Executor;
import org.apache.iceberg.catalog.Catalog;

/**
 * The entry point for hosts (the broker plugin, the standalone tool): materializers for the managed ledgers of a
 * {@link Lakestream} log, wired with the log's schema registry and managed-ledger records.
 */
public final class Materializers {

    /** The catalog namespace of managed-ledger streams (docs/layout.md §8). */
    public static final String MANAGED_LEDGERS = "managed-ledgers";

    private final Lakestream log;
    private final Catalog catalog;
    private final MaterializerConfig config;
    private final DeadLetters deadLetters;
    private final RegistrySchemaSource schemas;
    /** Shared by every materializer made here: the process's bound on buffered entries. */
    private final MemoryBudget budget;

    /**
     * @param log the log (not owned)
     * @param catalog the Iceberg catalog (not owned), e.g. {@code Catalogs.open(CatalogConfig.fromProperties(..))}
     * @param executor where the schema storage completes its futures (not the pool materializers run on: they
     *     block on those futures)
     */
    public Materializers(
            Lakestream log, Catalog catalog, MaterializerConfig config, DeadLetters deadLetters, Executor executor) {
        this.log = log;
        this.catalog = catalog;
        this.config = config;
        this.deadLetters = deadLetters;
        this.schemas =
                new RegistrySchemaSource(log.metadataStore(), log.config().metadataRoot(), executor);
        this.budget = new MemoryBudget(config.maxBufferedBytes());
    }

    /** The memory budget every materializer made here shares ({@code lakestream.iceberg.maxBufferedBytes}). */
    public MemoryBudget budget() {
        return budget;
    }

    /** The managed-ledger streams of persistent topics (a host filters them by its enablement rules). */
    public List<StreamInfo> topicStreams() {
        return log.catalog().list(MANAGED_LEDGERS).join().stream()
                .filter(s -> !s.deleted()
                        && s.name().split("/", 4).length == 4
                        && s.name().split("/", 4)[2].equals("persistent"))
                .toList();
    }

    /** A materializer of one managed-ledger stream (a topic partition) into its topic's table. */
    public TopicMaterializer materializer(StreamInfo stream) {
        if (!MANAGED_LEDGERS.equals(stream.namespace())) {
            throw new IllegalArgumentException("stream " + stream.fullName() + " is not a managed ledger (catalog"
                    + " namespace '" + MANAGED_LEDGERS + "')");
        }
        TopicRef topic = TopicRef.fromManagedLedgerName(stream.name());
        return new TopicMaterializer(
                topic,
                log.stream(stream),
                PositionResolver.managedLedger(
                        log.metadataStore(), log.config().metadataRoot(), stream.id(), topic.partition()),
                schemas,
                catalog,
                TableNames.of(topic),
                config,
                deadLetters,
                Clock.systemUTC(),
                budget);
    }

    /** A materializer running on its own thread ({@link MaterializerRunner#start()} not yet called). */
    public MaterializerRunner runner(StreamInfo stream) {
        return new MaterializerRunner(materializer(stream), config.pollInterval());
    }
}
