/**
 * The storage plugin: {@link dev.lakestream.pulsar.LakestreamManagedLedgerStorage} (the class named in broker.conf),
 * the factory, the broker-node codec and the metadata record; the ledger itself is in {@code .ledger}, its cursors in
 * {@code .cursor}.
 */
package dev.lakestream.pulsar;
