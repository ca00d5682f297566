package dev.lakestream.pulsar.compaction;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.bookkeeper.mledger.Position;
import org.apache.bookkeeper.mledger.PositionFactory;

/**
 * The committed compacted view of a topic: every message up to and including {@code horizon} is represented by the
 * compacted stream {@code streamId} (latest value per key), which holds {@code entries} records.
 *
 * <p>It is stored as position properties of the topic's {@code __compaction} durable cursor, written together with
 * the cursor's mark-delete at the horizon, so one durable write commits a run and any broker that loads the topic
 * finds it. The horizon is kept explicitly too: the mark-delete position of a cursor may be re-mapped once the ledger
 * holding it is trimmed.
 */
record CompactionState(Position horizon, long streamId, long entries) {

    /** Cursor property: the id of the Lakestream stream holding the compacted view. */
    static final String STREAM_ID = "lakestream.compaction.streamId";
    /** Cursor property: the horizon's ledger id. */
    static final String HORIZON_LEDGER = "lakestream.compaction.horizonLedgerId";
    /** Cursor property: the horizon's entry id. */
    static final String HORIZON_ENTRY = "lakestream.compaction.horizonEntryId";

    Map<String, Long> toProperties() {
        Map<String, Long> m = new HashMap<>();
        m.put(STREAM_ID, streamId);
        m.put(HORIZON_LEDGER, horizon.getLedgerId());
        m.put(HORIZON_ENTRY, horizon.getEntryId());
        return m;
    }

    /** The committed state in a cursor's properties, without the entry count (read from the stream). */
    static Optional<Committed> fromProperties(Map<String, Long> properties) {
        if (properties == null) {
            return Optional.empty();
        }
        Long id = properties.get(STREAM_ID);
        Long ledger = properties.get(HORIZON_LEDGER);
        Long entry = properties.get(HORIZON_ENTRY);
        if (id == null || ledger == null || entry == null) {
            return Optional.empty();
        }
        return Optional.of(new Committed(PositionFactory.create(ledger, entry), id));
    }

    /** What the cursor records. */
    record Committed(Position horizon, long streamId) {}
}
