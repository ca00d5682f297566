package dev.lakestream.core.catalog;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

/** The catalog's one JSON mapper, for its records and the id registrations. */
final class CatalogJson {

    static final ObjectMapper MAPPER = new ObjectMapper();

    private CatalogJson() {}

    /** {@code value} as JSON bytes; the catalog only writes maps and records Jackson always serializes. */
    static byte[] bytes(Object value) {
        try {
            return MAPPER.writeValueAsBytes(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write a catalog record as JSON", e);
        }
    }
}
