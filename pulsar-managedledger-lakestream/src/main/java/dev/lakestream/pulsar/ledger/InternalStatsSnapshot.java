package dev.lakestream.pulsar.ledger;

import dev.lakestream.pulsar.common.VirtualLedgers;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import org.apache.pulsar.common.policies.data.ManagedLedgerInternalStats;

/**
 * A ledger's internal stats as Pulsar reports them ({@code topics stats-internal}): the ledger's counters, virtual
 * ledgers and properties, then each cursor's stats.
 *
 * <p>Takes no lock: {@link LakestreamManagedLedger} calls {@link #ofLedger} holding the state lock, so that the
 * write path's {@code counters} (read under it) and the state's named reads (which take it again) describe one
 * moment; the cursors' stats are added without it.
 */
final class InternalStatsSnapshot {

    private InternalStatsSnapshot() {}

    /** The ledger's part of the stats; call holding the state lock. */
    static ManagedLedgerInternalStats ofLedger(
            LedgerView ledger, AppendPipeline.Counters counters, boolean includeLedgerMetadata) {
        ManagedLedgerInternalStats s = new ManagedLedgerInternalStats();
        LedgerState state = ledger.state();
        s.entriesAddedCounter = counters.entriesAdded();
        s.numberOfEntries = state.numberOfEntries();
        s.totalSize = state.totalSize();
        List<VirtualLedgers.Ledger> ls = state.ledgerList();
        s.currentLedgerEntries = ls.isEmpty() ? 0 : state.ledgerEntries(ls.size() - 1);
        s.currentLedgerSize = state.currentLedgerSize();
        s.lastLedgerCreatedTimestamp =
                Instant.ofEpochMilli(counters.currentLedgerCreatedAt()).toString();
        s.waitingCursorsCount = ledger.cursors().waitingCount();
        s.pendingAddEntriesCount = counters.pendingAdds();
        s.lastConfirmedEntry = state.lastConfirmed().toString();
        s.state = switch (state.phase()) {
            case OPEN -> counters.switching() ? "CreatingLedger" : "LedgerOpened";
            case WRITE_FAILED -> "WriteFailed";
            case FENCED -> "Fenced";
            case TERMINATED -> "Terminated";
            case CLOSED -> "Closed";
            case DELETED -> "Deleted";
        };
        s.ledgers = state.ledgersForInternalStats(ledger.stream().id(), includeLedgerMetadata);
        s.properties = new LinkedHashMap<>(state.recordProperties());
        return s;
    }
}
