/**
 * The MBeans the broker reads for a Lakestream managed ledger and its cursors; they depend on Pulsar's interfaces
 * only, never on the ledger or cursor classes.
 */
package dev.lakestream.pulsar.metrics;
