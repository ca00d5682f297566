/**
 * Broker-facing service: Pulsar's schema registry storage ({@code schemaRegistryStorageClassName}) kept in the
 * Lakestream metadata store (docs/schema-registry.md).
 */
package dev.lakestream.pulsar.schema;
