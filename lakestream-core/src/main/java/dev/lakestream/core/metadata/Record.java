package dev.lakestream.core.metadata;

/**
 * A key, its value (empty when the get asked for no value) and its version.
 */
@SuppressWarnings({"ArrayRecordComponent", "AvoidCommonTypeNames"
}) // value as stored, never compared; a public API name
public record Record(String key, byte[] value, Version version) {}
