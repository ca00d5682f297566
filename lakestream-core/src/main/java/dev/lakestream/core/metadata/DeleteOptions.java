package dev.lakestream.core.metadata;

import java.util.Objects;
import java.util.Optional;

/**
 * Options of a delete.
 *
 * @param expectedVersionId {@link PutOptions#ANY_VERSION} or the version id the record must have
 * @param partitionKey the partition the record was written with, if any
 */
public record DeleteOptions(long expectedVersionId, Optional<String> partitionKey) {

    public static final DeleteOptions DEFAULT = new DeleteOptions(PutOptions.ANY_VERSION, Optional.empty());

    public DeleteOptions {
        Objects.requireNonNull(partitionKey, "partitionKey");
    }

    public static DeleteOptions ifVersion(long versionId) {
        return new DeleteOptions(versionId, Optional.empty());
    }

    public DeleteOptions partitionKey(String p) {
        return new DeleteOptions(expectedVersionId, Optional.of(p));
    }
}
