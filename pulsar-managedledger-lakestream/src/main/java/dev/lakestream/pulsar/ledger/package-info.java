/**
 * The managed ledger: one {@link dev.lakestream.pulsar.ledger.LakestreamManagedLedger} per stream, its state owner
 * {@link dev.lakestream.pulsar.ledger.LedgerState} (the threading rule) and its parts (appends, record writes, reads,
 * positions, cursors registry, retention, lifecycle), which see the ledger only through {@code LedgerView}. What the
 * ledger uses of the factory comes in as {@link dev.lakestream.pulsar.ledger.LedgerServices}: this package imports
 * {@code .cursor}, {@code .metrics} and {@code .common}, never the root package.
 */
package dev.lakestream.pulsar.ledger;
