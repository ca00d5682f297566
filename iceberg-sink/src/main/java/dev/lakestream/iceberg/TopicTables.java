package dev.lakestream.iceberg;

import dev.lakestream.iceberg.schema.IncompatibleSchemaException;
import dev.lakestream.iceberg.schema.MetadataColumns;
import dev.lakestream.iceberg.schema.SchemaSource;
import dev.lakestream.iceberg.schema.SchemaUnavailableException;
import dev.lakestream.iceberg.schema.TableSchemas;
import dev.lakestream.iceberg.schema.ValueMappings;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Loads a topic's table, or creates it (and its namespace) from the topic's latest schema. */
final class TopicTables {

    private static final Logger LOG = LoggerFactory.getLogger(TopicTables.class);

    private TopicTables() {}

    /**
     * The table, with Iceberg's own commit retries off ({@link RangeCommit} retries, re-validating each time);
     * created when it does not exist, partitioned by publish day when {@code config.partitionByDay()}.
     */
    static Table loadOrCreate(
            Catalog catalog,
            TableIdentifier tableId,
            TopicRef topic,
            SchemaSource schemas,
            MaterializerConfig config,
            String where)
            throws IncompatibleSchemaException, SchemaUnavailableException {
        try {
            return ensureOwnRetries(catalog.loadTable(tableId));
        } catch (NoSuchTableException e) {
            // Created from the topic's latest schema; older versions' columns are merged in as they are met.
        }
        String what = "schema " + topic.schemaId() + " (latest)";
        Schema schema = TableSchemas.schemaFor(ValueMappings.of(schemas.schema(topic.schemaId(), null), what), what);
        PartitionSpec spec = config.partitionByDay()
                ? PartitionSpec.builderFor(schema)
                        .day(MetadataColumns.PUBLISH_TIME)
                        .build()
                : PartitionSpec.unpartitioned();
        Map<String, String> props = new LinkedHashMap<>(config.tableProperties());
        props.put(TableProperties.COMMIT_NUM_RETRIES, "0");
        props.put("lakestream.topic", topic.topicName());
        if (catalog instanceof SupportsNamespaces ns) {
            createNamespace(ns, tableId.namespace());
        }
        try {
            Table t = catalog.createTable(tableId, schema, spec, props);
            LOG.info("{}: created table {}", where, tableId);
            return t;
        } catch (AlreadyExistsException e) {
            return ensureOwnRetries(catalog.loadTable(tableId));
        }
    }

    private static void createNamespace(SupportsNamespaces catalog, Namespace ns) {
        for (int i = 1; i <= ns.length(); i++) {
            Namespace level = Namespace.of(Arrays.copyOf(ns.levels(), i));
            if (!catalog.namespaceExists(level)) {
                try {
                    catalog.createNamespace(level);
                } catch (AlreadyExistsException e) {
                    // Created meanwhile by another materializer.
                }
            }
        }
    }

    /** Iceberg's internal retry would re-apply our summary on a base we did not validate: it must be off. */
    private static Table ensureOwnRetries(Table t) {
        if (!"0".equals(t.properties().get(TableProperties.COMMIT_NUM_RETRIES))) {
            t.updateProperties().set(TableProperties.COMMIT_NUM_RETRIES, "0").commit();
            t.refresh();
        }
        return t;
    }
}
