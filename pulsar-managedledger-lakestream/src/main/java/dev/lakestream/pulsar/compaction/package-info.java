/**
 * Broker-facing service: Pulsar's topic compaction ({@code compactionServiceFactoryClassName}) with the compacted
 * view kept in Lakestream streams (docs/compaction.md).
 */
package dev.lakestream.pulsar.compaction;
