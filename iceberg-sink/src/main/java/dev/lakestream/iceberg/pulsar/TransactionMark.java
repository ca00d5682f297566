package dev.lakestream.iceberg.pulsar;

/**
 * What an entry says about a Pulsar transaction: a message sent in it, or the broker's marker that ended it.
 *
 * @param mostBits the transaction id's high half (the coordinator's id)
 * @param leastBits the transaction id's low half
 * @param kind a message of the transaction, or its commit or abort marker
 */
public record TransactionMark(long mostBits, long leastBits, Kind kind) {

    public enum Kind {
        MESSAGE,
        COMMIT,
        ABORT
    }

    /** The transaction's id as Pulsar prints it ({@code (most,least)}). */
    public String txnId() {
        return "(" + mostBits + "," + leastBits + ")";
    }

    public boolean isMarker() {
        return kind != Kind.MESSAGE;
    }
}
