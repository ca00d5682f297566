package dev.lakestream.core.trim;

import dev.lakestream.core.index.IndexKey;
import dev.lakestream.core.metadata.DeleteOptions;
import dev.lakestream.core.metadata.GetOptions;
import dev.lakestream.core.metadata.MetadataStore;
import dev.lakestream.core.metadata.PutOptions;
import dev.lakestream.core.metadata.Record;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

/**
 * Retention holds: durable floors below which a stream's retention must not trim, one per holder. A reader that is
 * not a cursor of the stream (the Iceberg materializer: what it has not committed to its table yet) sets one, so
 * that retention keeps entries it still needs even when no subscription does and across restarts and ownership
 * moves. Retention (the managed ledger's trim of consumed ledgers) trims no further than the lowest hold; an
 * explicit trim (truncate, delete) ignores holds.
 *
 * <p>Key {@code <root>/retention-holds/<streamId>/<holder>} (partition key: the stream's, as its index), value the
 * offset in decimal ASCII: offsets at or above it are kept.
 */
public final class RetentionHolds {

    private final MetadataStore metadata;
    private final String root;

    public RetentionHolds(MetadataStore metadata, String metadataRoot) {
        this.metadata = Objects.requireNonNull(metadata, "metadata");
        this.root = metadataRoot + "/retention-holds/";
    }

    /** The key of one holder's hold on a stream. */
    public String key(long streamId, String holder) {
        if (holder.isEmpty() || holder.contains("/")) {
            throw new IllegalArgumentException("retention hold holder '" + holder + "' must be non-empty, without '/'");
        }
        return prefix(streamId) + holder;
    }

    private String prefix(long streamId) {
        return root + streamId + "/";
    }

    /** Sets {@code holder}'s hold on the stream at {@code offset} (replacing its previous one). */
    public CompletableFuture<Void> hold(long streamId, String holder, long offset) {
        if (offset < 0) {
            throw new IllegalArgumentException(
                    "retention hold of " + holder + " on stream " + streamId + " at negative offset " + offset);
        }
        return metadata.put(
                        key(streamId, holder),
                        Long.toString(offset).getBytes(StandardCharsets.UTF_8),
                        PutOptions.DEFAULT.partitionKey(IndexKey.partitionKey(streamId)))
                .thenApply(r -> null);
    }

    /** Removes {@code holder}'s hold; true if there was one. */
    public CompletableFuture<Boolean> release(long streamId, String holder) {
        return metadata.delete(
                key(streamId, holder), DeleteOptions.DEFAULT.partitionKey(IndexKey.partitionKey(streamId)));
    }

    /** The holder's hold, if it has one. */
    public CompletableFuture<OptionalLong> get(long streamId, String holder) {
        String key = key(streamId, holder);
        return metadata.get(key, GetOptions.DEFAULT.partitionKey(IndexKey.partitionKey(streamId)))
                .thenApply(r -> r.map(rec -> OptionalLong.of(parse(rec))).orElse(OptionalLong.empty()));
    }

    /** The lowest hold on the stream, empty when none. */
    public CompletableFuture<OptionalLong> floor(long streamId) {
        String prefix = prefix(streamId);
        // "<prefix>/" ends the range after every key one level below the prefix in Oxia's hierarchical order too
        // (as the cursor store's listing does); the filter keeps exactly that level.
        return metadata.rangeScan(prefix, prefix + "/", Optional.of(IndexKey.partitionKey(streamId)), 0)
                .thenApply(records -> records.stream()
                        .filter(r -> r.key().startsWith(prefix))
                        .mapToLong(RetentionHolds::parse)
                        .min());
    }

    /** Removes every hold on the stream (it is deleted). */
    public CompletableFuture<Void> releaseAll(long streamId) {
        String prefix = prefix(streamId);
        return metadata.deleteRange(prefix, prefix + "/", Optional.of(IndexKey.partitionKey(streamId)));
    }

    private static long parse(Record r) {
        String s = new String(r.value(), StandardCharsets.UTF_8).trim();
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            throw new IllegalStateException("retention hold " + r.key() + " holds '" + s + "', not an offset", e);
        }
    }
}
