/**
 * Broker-facing service: the transaction coordinator's log ({@code transactionMetadataStoreProviderClassName}) on a
 * Lakestream managed ledger.
 */
package dev.lakestream.pulsar.transaction;
