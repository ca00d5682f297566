/**
 * The floor every other package of this module stands on, and that imports none of them: the stored formats (the
 * ledger's metadata record {@link dev.lakestream.pulsar.common.ManagedLedgerRecord}, the broker node
 * {@link dev.lakestream.pulsar.common.BrokerNode}, the position mapping
 * {@link dev.lakestream.pulsar.common.VirtualLedgers}, the storage-class names) and the adapters to Pulsar's API that
 * the factory, the ledger and the cursor all use ({@link dev.lakestream.pulsar.common.Errors},
 * {@link dev.lakestream.pulsar.common.Callbacks}, {@link dev.lakestream.pulsar.common.Sync}). {@code LayeringTest}
 * checks the floors.
 */
package dev.lakestream.pulsar.common;
