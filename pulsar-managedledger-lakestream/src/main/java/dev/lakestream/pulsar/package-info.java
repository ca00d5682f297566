/**
 * The storage plugin: {@link dev.lakestream.pulsar.LakestreamManagedLedgerStorage} (the class named in broker.conf),
 * the factory (with {@code InitialHolds}, which the broker plugin sets on it) and the read-only ledger it hands out.
 * The ledger itself is in {@code .ledger}, its cursors in {@code .cursor}, what they all share in {@code .common};
 * this package sits above them and none of them imports it (the factory hands each ledger a
 * {@code ledger.LedgerServices}).
 */
package dev.lakestream.pulsar;
