package dev.lakestream.core.catalog;

import java.util.Map;

/**
 * A stream as the catalog knows it.
 *
 * @param id the numeric stream id every index, trim and cursor key uses; never reused
 * @param deleted whether this is a tombstone: the name was deleted and its old data must never show again
 * @param version the catalog record's version, for compare-and-set updates of the properties
 */
public record StreamInfo(
        String namespace,
        String name,
        long id,
        boolean deleted,
        long createdAt,
        Map<String, String> properties,
        long version) {

    public StreamInfo {
        properties = Map.copyOf(properties);
    }

    public String fullName() {
        return namespace + "/" + name;
    }
}
