package dev.lakestream.handler;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Optional;

/**
 * Which storage holds a managed ledger, told from its {@code /managed-ledgers/<name>} node in the broker's metadata
 * store. Both factories keep that node: Pulsar's BookKeeper factory stores its {@code ManagedLedgerInfo} there
 * (protobuf, binary), Lakestream's factory the JSON {@code {"storage":"lakestream","streamId":N}}. A zero-byte node
 * is the placeholder the broker writes when a topic is created through the admin API before any storage opened it:
 * it holds no data in either.
 */
public final class LedgerStorage {

    /** The storage-class name of Pulsar's own managed ledger, as the Lakestream storage plugin offers it. */
    public static final String BOOKKEEPER = "bookkeeper";

    private LedgerStorage() {
    }

    /** The storage class whose data the node describes; empty for a placeholder (no data anywhere). */
    public static Optional<String> of(byte[] node, ObjectMapper json) {
        if (node == null || node.length == 0) {
            return Optional.empty();
        }
        if (node[0] == '{') {
            try {
                JsonNode root = json.readTree(node);
                JsonNode storage = root == null ? null : root.get("storage");
                if (storage != null && storage.isTextual()) {
                    return Optional.of(storage.asText());
                }
            } catch (Exception e) {
                // Not JSON after all: a ManagedLedgerInfo whose first byte happens to be '{'.
            }
        }
        return Optional.of(BOOKKEEPER);
    }
}
