package dev.lakestream.core.metadata;

import java.util.Objects;
import java.util.Optional;

/**
 * Options of a get.
 *
 * @param comparison how the key is compared
 * @param partitionKey the partition the key was written with, if any
 * @param includeValue {@code false} to fetch only the key and version
 */
public record GetOptions(Comparison comparison, Optional<String> partitionKey, boolean includeValue) {

    public static final GetOptions DEFAULT = new GetOptions(Comparison.EQUAL, Optional.empty(), true);

    public GetOptions {
        Objects.requireNonNull(comparison, "comparison");
        Objects.requireNonNull(partitionKey, "partitionKey");
    }

    public static GetOptions of(Comparison comparison) {
        return DEFAULT.comparison(comparison);
    }

    public GetOptions comparison(Comparison c) {
        return new GetOptions(c, partitionKey, includeValue);
    }

    public GetOptions partitionKey(String p) {
        return new GetOptions(comparison, Optional.of(p), includeValue);
    }

    public GetOptions withoutValue() {
        return new GetOptions(comparison, partitionKey, false);
    }
}
