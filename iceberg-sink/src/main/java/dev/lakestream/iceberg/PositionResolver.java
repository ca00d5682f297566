package dev.lakestream.iceberg;

import dev.lakestream.core.metadata.MetadataStore;
import dev.lakestream.iceberg.schema.MessagePosition;
import dev.lakestream.pulsar.common.ManagedLedgerRecord;
import java.util.List;
import java.util.Optional;

/** Maps a stream offset to the Pulsar position of its entry. Used on the materializer's thread only. */
public interface PositionResolver {

    /** Re-reads what the mapping depends on; called once per read of new entries, after the read. */
    void refresh();

    MessagePosition position(long offset);

    /** For streams that are not managed ledgers: ledger id -1, entry id = offset. */
    static PositionResolver streamOffsets(int partition) {
        return new PositionResolver() {
            @Override
            public void refresh() {}

            @Override
            public MessagePosition position(long offset) {
                return new MessagePosition(partition, -1, offset, offset);
            }
        };
    }

    /**
     * Positions from the managed-ledger record (docs/layout.md §8): entry {@code o} is in the last ledger whose
     * first offset is {@code <= o}, at entry id {@code o - firstOffset}. An entry is acknowledged only once its
     * ledger is in the record, so a record read after the entries covers them. Offsets below every listed ledger
     * (trimmed away) get ledger id -1.
     */
    static PositionResolver managedLedger(MetadataStore store, String metadataRoot, long streamId, int partition) {
        return new PositionResolver() {
            private List<ManagedLedgerRecord.LedgerEntry> ledgers = List.of();

            @Override
            public void refresh() {
                Optional<ManagedLedgerRecord> r =
                        ManagedLedgerRecord.load(store, metadataRoot, streamId).join();
                ledgers = r.map(m -> List.copyOf(m.ledgers)).orElse(List.of());
            }

            @Override
            public MessagePosition position(long offset) {
                for (int i = ledgers.size() - 1; i >= 0; i--) {
                    ManagedLedgerRecord.LedgerEntry l = ledgers.get(i);
                    if (l.firstOffset <= offset) {
                        return new MessagePosition(partition, l.id, offset - l.firstOffset, offset);
                    }
                }
                return new MessagePosition(partition, -1, offset, offset);
            }
        };
    }
}
