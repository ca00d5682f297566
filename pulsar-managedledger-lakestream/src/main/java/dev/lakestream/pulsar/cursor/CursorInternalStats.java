package dev.lakestream.pulsar.cursor;

import dev.lakestream.core.cursor.CursorState;
import dev.lakestream.core.cursor.DurableCursor;
import java.util.LinkedHashMap;
import org.apache.pulsar.common.policies.data.ManagedLedgerInternalStats.CursorStats;

/**
 * A cursor's part of the ledger's internal stats ({@code topics stats-internal}). There is no cursor ledger: its
 * fields are -1.
 */
final class CursorInternalStats {

    private CursorInternalStats() {}

    static CursorStats of(CursorOwner cursor, CursorReader reader, DurableCursor dc, CursorLedger ml) {
        CursorStats s = new CursorStats();
        s.markDeletePosition = cursor.markDeletedPosition().toString();
        s.readPosition = cursor.readPosition().toString();
        s.waitingReadOp = reader.hasWaitingRead();
        s.pendingReadOps = 0;
        CursorOwner.Counters counters = cursor.counters();
        s.messagesConsumedCounter = counters.messagesConsumed();
        s.state = counters.closed() ? "Closed" : "Open";
        s.cursorLedger = -1;
        s.cursorLedgerLastEntry = -1;
        CursorState st = dc.state();
        StringBuilder sb = new StringBuilder("[");
        for (long[] r : st.individuallyAcked().toList()) {
            if (sb.length() > 1) {
                sb.append(',');
            }
            sb.append('(')
                    .append(ml.positionOf(r[0] - 1))
                    .append("..")
                    .append(ml.positionOf(r[1] - 1))
                    .append(']');
        }
        s.individuallyDeletedMessages = sb.append(']').toString();
        s.active = cursor.isActive();
        s.numberOfEntriesSinceFirstNotAckedMessage = cursor.entriesSinceFirstNotAcked();
        s.totalNonContiguousDeletedMessagesRange = st.individuallyAcked().rangeCount();
        s.properties = new LinkedHashMap<>(st.positionProperties());
        return s;
    }
}
