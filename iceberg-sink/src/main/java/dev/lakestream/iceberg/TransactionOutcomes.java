package dev.lakestream.iceberg;

import dev.lakestream.core.StreamLog;
import dev.lakestream.core.log.LogEntry;
import dev.lakestream.iceberg.pulsar.EntryDecodeException;
import dev.lakestream.iceberg.pulsar.EntryDecoder;
import dev.lakestream.iceberg.pulsar.TransactionMark;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Whether a Pulsar transaction that wrote to a stream committed or aborted, learned the way the broker's
 * transaction buffer writes it down: the transaction's messages are appended as they are sent, and its end is a
 * commit or abort marker appended to the same topic later. A transaction whose marker is not in the stream yet is
 * open, and the materializer waits at its first message (as Pulsar's consumers do at the max read position).
 *
 * <p>Reads ahead of the materializer from where it stands to the stream's end, remembering the outcome of each marker
 * it passes; a later question continues from where the last read-ahead stopped. An outcome is forgotten once the
 * materializer has passed its marker (every message of a transaction comes before its marker), so what is kept is
 * bounded by the transactions whose markers lie between the materializer and the stream's end.
 *
 * <p>Confined to its materializer's thread.
 */
final class TransactionOutcomes {

    enum Outcome {
        COMMITTED,
        ABORTED,
        OPEN
    }

    private final StreamLog stream;
    private final MaterializerConfig config;
    /** Keyed by {@link TransactionMark#txnId()}: true for committed. */
    private final Map<String, Boolean> decided = new HashMap<>();
    /** Where the next read-ahead starts; every marker before it (and not yet passed) is in {@link #decided}. */
    private long scannedTo = -1;

    TransactionOutcomes(StreamLog stream, MaterializerConfig config) {
        this.stream = stream;
        this.config = config;
    }

    /**
     * The outcome of the transaction of a message at {@code offset} (whose entry ends at {@code entryEnd}), reading
     * ahead as far as the stream goes if it is not known yet.
     */
    Outcome outcome(TransactionMark message, long entryEnd) {
        Boolean d = decided.get(message.txnId());
        if (d == null) {
            readAhead(Math.max(scannedTo, entryEnd));
            d = decided.get(message.txnId());
        }
        return d == null ? Outcome.OPEN : d ? Outcome.COMMITTED : Outcome.ABORTED;
    }

    /** The materializer passed this marker: no message of its transaction is ahead of it. */
    void passed(TransactionMark marker) {
        decided.remove(marker.txnId());
    }

    /** The materializer went back (to the table's offset): what was forgotten must be read again. */
    void reset() {
        decided.clear();
        scannedTo = -1;
    }

    private void readAhead(long from) {
        long at = from;
        while (true) {
            long readAt = at;
            List<LogEntry> batch = StreamWaits.entries(
                    stream.read(readAt, config.readEntries(), config.readBytes()),
                    config.readTimeout(),
                    () -> "the read ahead for transaction outcomes of stream " + stream.id() + " at offset " + readAt);
            if (batch.isEmpty()) {
                break;
            }
            try {
                for (LogEntry e : batch) {
                    TransactionMark mark = markOf(e);
                    if (mark != null && mark.isMarker()) {
                        decided.put(mark.txnId(), mark.kind() == TransactionMark.Kind.COMMIT);
                    }
                    at = e.endOffset();
                }
            } finally {
                batch.forEach(e -> e.payload().release());
            }
        }
        scannedTo = at;
    }

    private TransactionMark markOf(LogEntry e) {
        if (e.voided()) {
            return null;
        }
        try {
            return EntryDecoder.transactionOf(e.payload(), "stream " + stream.id() + " offset " + e.offset());
        } catch (EntryDecodeException ex) {
            return null; // not a message: the materializer dead-letters it when it gets there
        }
    }
}
