package dev.lakestream.core.catalog;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lakestream.core.metadata.MetadataStore;
import dev.lakestream.core.metadata.PutOptions;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Writes catalog records exactly as the previous version of {@link StreamCatalog} wrote them (written out here, not
 * calling today's code): it drew an id from its own generator {@code <root>/stream-id-generator} (the put's version
 * id), wrote the back-pointer {@code <root>/stream-ids/<id>} unconditionally, then the name's record put-if-absent,
 * and registered nothing at {@code /stream-id/<id>}.
 */
final class PreviousVersionCatalog {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final MetadataStore metadata;
    private final String root;

    PreviousVersionCatalog(MetadataStore metadata, String root) {
        this.metadata = metadata;
        this.root = root;
    }

    /** A stream as the previous version created it: its id drawn from the old generator. */
    long create(String namespace, String name) throws Exception {
        long id = metadata.put(root + "/stream-id-generator", new byte[0])
                .join()
                .version()
                .versionId();
        write(namespace, name, id);
        return id;
    }

    /**
     * A stream of the previous version whose id is {@code id}: what its generator handed out when that key lived on
     * another Oxia shard than Ursa's generator (its versions counted on their own). The generator is written as the
     * previous version did; only the number is chosen, so that it collides with what Ursa's generator hands out next.
     */
    void createWithId(String namespace, String name, long id) throws Exception {
        metadata.put(root + "/stream-id-generator", new byte[0]).join();
        write(namespace, name, id);
    }

    private void write(String namespace, String name, long id) throws Exception {
        metadata.put(root + "/stream-ids/" + id, JSON.writeValueAsBytes(Map.of("namespace", namespace, "name", name)))
                .join();
        Map<String, Object> record = new LinkedHashMap<>();
        record.put("id", id);
        record.put("deleted", false);
        record.put("createdAt", System.currentTimeMillis());
        record.put("properties", Map.of("written-by", "previous version"));
        metadata.put(
                        root + "/streams/" + StreamCatalog.encodeName(namespace) + "/" + StreamCatalog.encodeName(name),
                        JSON.writeValueAsBytes(record),
                        PutOptions.ifAbsent())
                .join();
    }
}
