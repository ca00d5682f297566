package dev.lakestream.core.metadata;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Options of a put. Immutable; each method returns a copy with one option changed.
 *
 * @param expectedVersionId {@link #ANY_VERSION}, {@link #ABSENT} (create only if the key does not exist), or
 *     the version id the record must have (compare-and-set)
 * @param partitionKey the partition the record is placed in (required with sequence keys)
 * @param ephemeral bind the record to this client's session: it is removed when the session ends
 * @param sequenceKeyDeltas empty for a plain put; else the counter deltas of a sequence-key put
 */
public record PutOptions(
        long expectedVersionId, Optional<String> partitionKey, boolean ephemeral, List<Long> sequenceKeyDeltas) {

    /** No condition on the current version. */
    public static final long ANY_VERSION = Long.MIN_VALUE;
    /** The key must not exist. */
    public static final long ABSENT = -1;

    public static final PutOptions DEFAULT = new PutOptions(ANY_VERSION, Optional.empty(), false, List.of());

    public PutOptions {
        Objects.requireNonNull(partitionKey, "partitionKey");
        sequenceKeyDeltas = List.copyOf(sequenceKeyDeltas);
    }

    public static PutOptions ifAbsent() {
        return DEFAULT.expectedVersionId(ABSENT);
    }

    public static PutOptions ifVersion(long versionId) {
        return DEFAULT.expectedVersionId(versionId);
    }

    public PutOptions expectedVersionId(long v) {
        return new PutOptions(v, partitionKey, ephemeral, sequenceKeyDeltas);
    }

    public PutOptions partitionKey(String p) {
        return new PutOptions(expectedVersionId, Optional.of(p), ephemeral, sequenceKeyDeltas);
    }

    public PutOptions asEphemeral() {
        return new PutOptions(expectedVersionId, partitionKey, true, sequenceKeyDeltas);
    }

    public PutOptions sequenceKeyDeltas(long... deltas) {
        List<Long> list = new java.util.ArrayList<>(deltas.length);
        for (long d : deltas) {
            list.add(d);
        }
        return new PutOptions(expectedVersionId, partitionKey, ephemeral, list);
    }

    public boolean isSequenceKeyPut() {
        return !sequenceKeyDeltas.isEmpty();
    }
}
