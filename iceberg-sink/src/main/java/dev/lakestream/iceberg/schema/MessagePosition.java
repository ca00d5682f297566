package dev.lakestream.iceberg.schema;

/**
 * Where a message sits: its topic partition, its Pulsar position (ledger, entry, batch index) and the offset of
 * its entry in the partition's stream. {@code (ledgerId, entryId, batchIndex)} is unique per message of a
 * partition.
 *
 * @param partition the partition index, or {@code -1} for a non-partitioned topic
 * @param ledgerId Pulsar's ledger id, or {@code -1} when the managed ledger no longer lists the ledger
 * @param entryId Pulsar's entry id in the ledger (or the stream offset when the ledger id is unknown)
 * @param offset the entry's offset in the stream
 */
public record MessagePosition(int partition, long ledgerId, long entryId, long offset) {}
