package dev.lakestream.pulsar.ledger;

import dev.lakestream.pulsar.common.VirtualLedgers;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.NavigableMap;
import java.util.TreeMap;
import org.apache.bookkeeper.mledger.proto.ManagedLedgerInfo.LedgerInfo;
import org.apache.pulsar.common.policies.data.ManagedLedgerInternalStats;

/**
 * Describes {@link VirtualLedgers} in Pulsar's terms: the {@link LedgerInfo} records of the managed-ledger API and
 * the ledger list of the internal stats. Callers hold the lock that guards the {@link VirtualLedgers} they pass.
 */
final class LedgerInfos {

    private LedgerInfos() {}

    static LedgerInfo info(VirtualLedgers ledgers, int i) {
        VirtualLedgers.Ledger l = ledgers.ledgers().get(i);
        LedgerInfo info = new LedgerInfo()
                .setLedgerId(l.id())
                .setEntries(ledgers.entries(i))
                .setSize(ledgers.size(i));
        if (l.timestamp() > 0) {
            info.setTimestamp(l.timestamp());
        }
        return info;
    }

    /** Every ledger's info by ledger id, unmodifiable. */
    static NavigableMap<Long, LedgerInfo> all(VirtualLedgers ledgers) {
        TreeMap<Long, LedgerInfo> out = new TreeMap<>();
        List<VirtualLedgers.Ledger> ls = ledgers.ledgers();
        for (int i = 0; i < ls.size(); i++) {
            out.put(ls.get(i).id(), info(ledgers, i));
        }
        return Collections.unmodifiableNavigableMap(out);
    }

    /** The ledgers as internal stats list them; the metadata names the stream and offset each one maps to. */
    static List<ManagedLedgerInternalStats.LedgerInfo> forInternalStats(
            VirtualLedgers ledgers, long streamId, boolean includeLedgerMetadata) {
        List<VirtualLedgers.Ledger> ls = ledgers.ledgers();
        List<ManagedLedgerInternalStats.LedgerInfo> out = new ArrayList<>();
        for (int i = 0; i < ls.size(); i++) {
            ManagedLedgerInternalStats.LedgerInfo li = new ManagedLedgerInternalStats.LedgerInfo();
            li.ledgerId = ls.get(i).id();
            li.entries = ledgers.entries(i);
            li.size = ledgers.size(i);
            li.offloaded = false;
            if (includeLedgerMetadata) {
                li.metadata = "lakestream{streamId=" + streamId + ", firstOffset="
                        + ls.get(i).firstOffset() + ", timestamp=" + ls.get(i).timestamp() + "}";
            }
            out.add(li);
        }
        return out;
    }
}
