package dev.lakestream.tests;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.pulsar.broker.PulsarService;
import org.apache.pulsar.broker.service.schema.SchemaStorageFactory;
import org.apache.pulsar.common.protocol.schema.SchemaStorage;
import org.apache.pulsar.common.protocol.schema.SchemaVersion;
import org.apache.pulsar.common.protocol.schema.StoredSchema;
import org.apache.pulsar.common.schema.LongSchemaVersion;

/**
 * TEST ONLY, a stand-in until the diskless configuration names a schema storage on Lakestream: the schemas of a broker
 * kept in memory (lost on restart). System topics (topic policies, transaction buffer snapshots) are produced with an
 * Avro schema, so without any schema storage that works without bookies they cannot be tested at all.
 * {@link PulsarBrokerExtension} installs it only when the configuration file leaves
 * {@code schemaRegistryStorageClassName} at Pulsar's BookKeeper default.
 */
public final class InMemorySchemaStorageFactory implements SchemaStorageFactory {

    @Override
    public SchemaStorage create(PulsarService pulsar) {
        return new Storage();
    }

    private static final class Storage implements SchemaStorage {
        private final Map<String, List<byte[]>> schemas = new ConcurrentHashMap<>();

        @Override
        public synchronized CompletableFuture<SchemaVersion> put(String key, byte[] value, byte[] hash) {
            List<byte[]> versions = schemas.computeIfAbsent(key, k -> new ArrayList<>());
            versions.add(value.clone());
            return CompletableFuture.completedFuture(new LongSchemaVersion(versions.size() - 1));
        }

        @Override
        public synchronized CompletableFuture<StoredSchema> get(String key, SchemaVersion version) {
            List<byte[]> versions = schemas.get(key);
            if (versions == null || versions.isEmpty()) {
                return CompletableFuture.completedFuture(null);
            }
            long v = version == SchemaVersion.Latest ? versions.size() - 1 : ((LongSchemaVersion) version).getVersion();
            if (v < 0 || v >= versions.size()) {
                return CompletableFuture.completedFuture(null);
            }
            return CompletableFuture.completedFuture(new StoredSchema(versions.get((int) v), new LongSchemaVersion(v)));
        }

        @Override
        public synchronized CompletableFuture<List<CompletableFuture<StoredSchema>>> getAll(String key) {
            List<CompletableFuture<StoredSchema>> out = new ArrayList<>();
            List<byte[]> versions = schemas.getOrDefault(key, List.of());
            for (int i = 0; i < versions.size(); i++) {
                out.add(CompletableFuture.completedFuture(new StoredSchema(versions.get(i), new LongSchemaVersion(i))));
            }
            return CompletableFuture.completedFuture(out);
        }

        @Override
        public CompletableFuture<SchemaVersion> delete(String key, boolean forcefully) {
            return delete(key);
        }

        @Override
        public synchronized CompletableFuture<SchemaVersion> delete(String key) {
            List<byte[]> removed = schemas.remove(key);
            return CompletableFuture.completedFuture(
                    removed == null ? null : new LongSchemaVersion(removed.size() - 1));
        }

        @Override
        public SchemaVersion versionFromBytes(byte[] version) {
            return new LongSchemaVersion(ByteBuffer.wrap(version).getLong());
        }

        @Override
        public void start() {
        }

        @Override
        public void close() {
        }
    }
}
