package dev.lakestream.pulsar.ledger;

import dev.lakestream.pulsar.common.VirtualLedgers;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import org.apache.pulsar.common.policies.data.ManagedLedgerInternalStats;

/**
 * A ledger's internal stats as Pulsar reports them ({@code topics stats-internal}): the
 * ledger's counters, virtual ledgers and properties read together under its monitor, then each cursor's stats.
 */
final class InternalStatsSnapshot {

    private InternalStatsSnapshot() {}

    static ManagedLedgerInternalStats take(
            LedgerView ledger,
            AppendPipeline appends,
            ManagedLedgerRecordWriter recordWriter,
            boolean includeLedgerMetadata) {
        ManagedLedgerInternalStats s = new ManagedLedgerInternalStats();
        LedgerState state = ledger.state();
        synchronized (state) {
            VirtualLedgers ledgers = state.ledgersLocked();
            s.entriesAddedCounter = appends.entriesAddedCounterLocked();
            s.numberOfEntries = Math.max(0, state.lceOffset() + 1 - state.startOffset());
            s.totalSize = state.totalSize();
            List<VirtualLedgers.Ledger> ls = ledgers.ledgers();
            s.currentLedgerEntries = ls.isEmpty() ? 0 : ledgers.entries(ls.size() - 1);
            s.currentLedgerSize = ledgers.currentSize();
            s.lastLedgerCreatedTimestamp =
                    Instant.ofEpochMilli(appends.currentLedgerCreatedAtLocked()).toString();
            s.waitingCursorsCount = ledger.cursors().waitingCount();
            s.pendingAddEntriesCount = appends.pendingAddsLocked();
            s.lastConfirmedEntry = state.lastConfirmed().toString();
            s.state = switch (state.phase()) {
                case OPEN -> appends.switchingLocked() ? "CreatingLedger" : "LedgerOpened";
                case WRITE_FAILED -> "WriteFailed";
                case FENCED -> "Fenced";
                case TERMINATED -> "Terminated";
                case CLOSED -> "Closed";
                case DELETED -> "Deleted";
            };
            s.ledgers = LedgerInfos.forInternalStats(ledgers, ledger.stream().id(), includeLedgerMetadata);
            s.properties = new LinkedHashMap<>(recordWriter.recordLocked().properties);
        }
        s.cursors = ledger.cursors().internalStats();
        return s;
    }
}
