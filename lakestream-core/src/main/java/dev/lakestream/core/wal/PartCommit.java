package dev.lakestream.core.wal;

import java.util.List;

/**
 * One stream's share of a stored WAL object, being committed to the stream's index.
 *
 * @param records the records of its appends: the first delta of its sequence-key put
 * @param bytes the payload bytes of its appends: the second delta
 * @param knownEnd the stream's end offset as the writer last saw it (0 if never): the record cannot end at or
 *     below it
 */
record PartCommit(
        long streamId, List<PendingAppend> appends, String objectKey, long records, long bytes, long knownEnd) {}
