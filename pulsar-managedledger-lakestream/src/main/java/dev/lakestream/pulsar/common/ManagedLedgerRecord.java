package dev.lakestream.pulsar.common;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lakestream.core.metadata.MetadataStore;
import dev.lakestream.core.metadata.PutOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The durable metadata of one managed ledger, a JSON record at {@code <root>/managed-ledgers/<streamId>} in the
 * Lakestream metadata store, always written by compare-and-set on its version (see docs/layout.md, "Managed
 * ledgers").
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public final class ManagedLedgerRecord {

    static final ObjectMapper JSON = new ObjectMapper();

    public int version = 1;
    public String name;
    public long streamId;
    public long createdAt;
    /** Offset of the last entry when terminated, or null. */
    public Long terminatedOffset;

    public List<LedgerEntry> ledgers = new ArrayList<>();
    public Map<String, String> properties = new LinkedHashMap<>();

    /** The record's version in the store, -1 when not yet written (not serialised). */
    @com.fasterxml.jackson.annotation.JsonIgnore
    public long storeVersion = -1;

    @JsonIgnoreProperties(ignoreUnknown = true)
    public static final class LedgerEntry {
        public long id;
        public long firstOffset;
        public long size;
        public long timestamp;

        public LedgerEntry() {}

        LedgerEntry(VirtualLedgers.Ledger l) {
            id = l.id();
            firstOffset = l.firstOffset();
            size = l.size();
            timestamp = l.timestamp();
        }

        VirtualLedgers.Ledger toLedger() {
            return new VirtualLedgers.Ledger(id, firstOffset, size, timestamp);
        }
    }

    public static String key(String root, long streamId) {
        return root + "/managed-ledgers/" + streamId;
    }

    public static String idGeneratorKey(String root) {
        return root + "/managed-ledger-id-generator";
    }

    /** Draws a new ledger id: the version id of an unconditional write of the generator key. */
    public static CompletableFuture<Long> newLedgerId(MetadataStore store, String root) {
        return store.put(idGeneratorKey(root), new byte[0])
                .thenApply(p -> p.version().versionId());
    }

    public static CompletableFuture<Optional<ManagedLedgerRecord>> load(
            MetadataStore store, String root, long streamId) {
        return store.get(key(root, streamId))
                .thenApply(r -> r.map(rec -> {
                    try {
                        ManagedLedgerRecord m = JSON.readValue(rec.value(), ManagedLedgerRecord.class);
                        m.storeVersion = rec.version().versionId();
                        return m;
                    } catch (IOException e) {
                        throw new IllegalStateException(
                                "managed-ledger record " + rec.key() + " is not valid JSON: " + e.getMessage(), e);
                    }
                }));
    }

    /** Writes the record if it is still at {@link #storeVersion} (absent when -1); updates storeVersion. */
    public CompletableFuture<Void> save(MetadataStore store, String root) {
        byte[] bytes;
        try {
            bytes = JSON.writeValueAsBytes(this);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        PutOptions opts = storeVersion < 0 ? PutOptions.ifAbsent() : PutOptions.ifVersion(storeVersion);
        return store.put(key(root, streamId), bytes, opts)
                .thenAccept(p -> storeVersion = p.version().versionId());
    }

    public ManagedLedgerRecord copy() {
        ManagedLedgerRecord c = new ManagedLedgerRecord();
        c.version = version;
        c.name = name;
        c.streamId = streamId;
        c.createdAt = createdAt;
        c.terminatedOffset = terminatedOffset;
        c.ledgers = new ArrayList<>(ledgers);
        c.properties = new LinkedHashMap<>(properties);
        c.storeVersion = storeVersion;
        return c;
    }

    public void assignLedgers(VirtualLedgers v) {
        List<LedgerEntry> out = new ArrayList<>();
        for (VirtualLedgers.Ledger l : v.ledgers()) {
            out.add(new LedgerEntry(l));
        }
        ledgers = out;
    }

    public List<VirtualLedgers.Ledger> toLedgers() {
        List<VirtualLedgers.Ledger> out = new ArrayList<>();
        for (LedgerEntry e : ledgers) {
            out.add(e.toLedger());
        }
        return out;
    }
}
