/**
 * The storage plugin and the managed ledger: {@link dev.lakestream.pulsar.LakestreamManagedLedgerStorage} (the class
 * named in broker.conf), the factory, the broker-node codec, and one {@code LakestreamManagedLedger} per stream with
 * its parts (appends, record writes, reads, positions, retention, lifecycle) around one {@code LedgerState}.
 */
package dev.lakestream.pulsar;
