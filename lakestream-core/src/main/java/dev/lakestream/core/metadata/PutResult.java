package dev.lakestream.core.metadata;

/** The key a put wrote (for a sequence-key put, the key the store assigned) and the record's new version. */
public record PutResult(String key, Version version) {}
