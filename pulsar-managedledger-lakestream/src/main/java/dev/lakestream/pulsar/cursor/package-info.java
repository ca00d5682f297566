/**
 * Pulsar's {@code ManagedCursor} on a core durable cursor: acknowledgements, reads, repositioning, scans and replay.
 * A cursor sees its ledger only through {@link dev.lakestream.pulsar.cursor.CursorLedger}; this package imports
 * {@code .metrics} and {@code .common} only.
 */
package dev.lakestream.pulsar.cursor;
