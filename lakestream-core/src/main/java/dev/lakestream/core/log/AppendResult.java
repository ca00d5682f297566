package dev.lakestream.core.log;

/**
 * Where an acknowledged append landed.
 *
 * @param streamId the stream
 * @param offset the offset of the append's first record; it covers {@code [offset, offset + records)}
 * @param records how many records the append held
 * @param timestamp the metadata store's commit time of the index record (ms since the epoch); every
 *     append of one stream committed by the same index record shares it
 * @param cumulativeSize the stream's total payload bytes up to and including this append
 */
public record AppendResult(long streamId, long offset, int records, long timestamp, long cumulativeSize) {

    /** The offset after this append's last record. */
    public long endOffset() {
        return offset + records;
    }
}
