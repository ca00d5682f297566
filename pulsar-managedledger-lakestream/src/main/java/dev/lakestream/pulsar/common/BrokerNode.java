package dev.lakestream.pulsar.common;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The codec of a managed ledger's node in the broker's metadata store ({@code /managed-ledgers/<name>}), which tells
 * which storage holds the ledger's data: Lakestream's factory writes {@code {"storage":"lakestream","streamId":N}};
 * Pulsar's BookKeeper factory keeps its {@code ManagedLedgerInfo} there (protobuf); a zero-byte node is the broker's
 * placeholder for a topic no storage opened yet. The factory and the broker plugin both read nodes through here.
 */
public final class BrokerNode {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String STORAGE = "storage";
    private static final String STREAM_ID = "streamId";

    private BrokerNode() {}

    /** The node of a Lakestream ledger kept in stream {@code streamId}. */
    public static byte[] encode(long streamId) {
        ObjectNode node = JSON.createObjectNode();
        node.put(STORAGE, StorageClasses.LAKESTREAM);
        node.put(STREAM_ID, streamId);
        try {
            return JSON.writeValueAsBytes(node);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot encode the broker node of stream " + streamId, e);
        }
    }

    /**
     * The storage class whose data {@code node} describes: the JSON's {@code storage} field, else
     * {@value StorageClasses#BOOKKEEPER} (a {@code ManagedLedgerInfo}); empty for a missing or
     * zero-byte node (a placeholder: no data in any storage).
     */
    public static Optional<String> storageOf(byte[] node) {
        if (node == null || node.length == 0) {
            return Optional.empty();
        }
        JsonNode storage = json(node).map(n -> n.get(STORAGE)).orElse(null);
        return Optional.of(storage != null && storage.isTextual() ? storage.asText() : StorageClasses.BOOKKEEPER);
    }

    /** Whether {@code node} is a Lakestream ledger's node. */
    public static boolean isLakestream(byte[] node) {
        return storageOf(node).filter(StorageClasses.LAKESTREAM::equals).isPresent();
    }

    /** Whether {@code node} holds another storage's ledger (not Lakestream's, not a placeholder). */
    public static boolean isOtherStorage(byte[] node) {
        return storageOf(node).filter(s -> !StorageClasses.LAKESTREAM.equals(s)).isPresent();
    }

    /** The stream of a Lakestream ledger's node; empty for any other node. */
    public static OptionalLong streamId(byte[] node) {
        if (!isLakestream(node)) {
            return OptionalLong.empty();
        }
        JsonNode id = json(node).map(n -> n.get(STREAM_ID)).orElse(null);
        return id != null && id.canConvertToLong() ? OptionalLong.of(id.asLong()) : OptionalLong.empty();
    }

    private static Optional<JsonNode> json(byte[] node) {
        if (node[0] != '{') {
            return Optional.empty();
        }
        try {
            return Optional.ofNullable(JSON.readTree(node));
        } catch (IOException e) {
            // Not JSON after all: a ManagedLedgerInfo whose first byte happens to be '{'.
            return Optional.empty();
        }
    }
}
