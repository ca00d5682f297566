package dev.lakestream.core.metadata;

/**
 * A key, its value (empty when the get asked for no value) and its version.
 */
public record Record(String key, byte[] value, Version version) {}
