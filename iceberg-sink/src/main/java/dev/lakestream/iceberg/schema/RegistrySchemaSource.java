package dev.lakestream.iceberg.schema;

import dev.lakestream.core.metadata.MetadataStore;
import dev.lakestream.pulsar.schema.LakestreamSchemaStorage;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import org.apache.pulsar.broker.service.schema.proto.SchemaInfo;
import org.apache.pulsar.common.protocol.schema.SchemaVersion;
import org.apache.pulsar.common.protocol.schema.StoredSchema;
import org.apache.pulsar.common.schema.LongSchemaVersion;
import org.apache.pulsar.common.schema.SchemaType;

/**
 * Reads schema versions from the records {@link LakestreamSchemaStorage} keeps in the Lakestream metadata store
 * (docs/layout.md §9), decoding each with the broker's own stored-schema protobuf. Nothing is cached here: the
 * storage reads the head each time (a deleted and re-created schema starts again at version 0 with other content)
 * and caches the immutable data records itself; materializers ask once per version.
 *
 * <p>Blocking: call it on the materializer's own thread, never on an event loop.
 */
public final class RegistrySchemaSource implements SchemaSource {

    private final LakestreamSchemaStorage storage;

    /**
     * @param executor where the storage completes its futures: not a pool whose threads call {@link #schema} (they
     *     wait for those futures; with every thread waiting, none would be left to complete them)
     */
    public RegistrySchemaSource(MetadataStore store, String metadataRoot, Executor executor) {
        this.storage = new LakestreamSchemaStorage(store, metadataRoot, executor);
    }

    @Override
    public TopicSchema schema(String schemaId, Long version) throws SchemaUnavailableException {
        StoredSchema stored;
        SchemaVersion wanted = version == null ? SchemaVersion.Latest : new LongSchemaVersion(version);
        try {
            stored = storage.get(schemaId, wanted).join();
        } catch (CompletionException e) {
            throw new SchemaUnavailableException(
                    "schema '" + schemaId + "' version " + wanted + " cannot be read: " + e.getCause(), e.getCause());
        }
        if (stored == null) {
            if (version == null) {
                return TopicSchema.BYTES;
            }
            throw new SchemaUnavailableException("schema '" + schemaId + "' has no version " + version, null);
        }
        return decode(schemaId, stored.data);
    }

    /** The broker's stored {@code SchemaInfo} record. */
    static TopicSchema decode(String schemaId, byte[] bytes) throws SchemaUnavailableException {
        SchemaInfo info = new SchemaInfo();
        try {
            info.parseFrom(bytes);
        } catch (RuntimeException e) {
            throw new SchemaUnavailableException("schema '" + schemaId + "': the stored record does not decode", e);
        }
        if (info.isDeleted()) {
            throw new SchemaUnavailableException(
                    "schema '" + schemaId + "': the version is a deletion tombstone", null);
        }
        Map<String, String> props = new LinkedHashMap<>();
        for (int i = 0; i < info.getPropsCount(); i++) {
            props.put(info.getPropAt(i).getKey(), info.getPropAt(i).getValue());
        }
        // As the broker's registry converts (SchemaRegistryServiceImpl.Functions): stored values are Pulsar's + 1.
        int stored = info.getType().getValue();
        SchemaType type = stored < 0 ? SchemaType.NONE : SchemaType.valueOf(stored - 1);
        return new TopicSchema(type, info.getSchema(), props);
    }
}
