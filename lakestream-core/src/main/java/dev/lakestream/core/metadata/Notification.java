package dev.lakestream.core.metadata;

/** A change to the store, as reported to listeners. */
public sealed interface Notification {

    record KeyCreated(String key, long versionId) implements Notification {}

    record KeyModified(String key, long versionId) implements Notification {}

    record KeyDeleted(String key) implements Notification {}

    /** Every key in {@code [startInclusive, endExclusive)} was deleted. */
    record KeyRangeDeleted(String startInclusive, String endExclusive) implements Notification {}
}
