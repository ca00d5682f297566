package dev.lakestream.core.metadata;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * A linearizable, sorted key-value store with the primitives the Lakestream log is built on: Oxia, or an
 * embedded single-node store with the same semantics.
 *
 * <h2>Keys and order</h2>
 * Keys are non-empty UTF-8 strings. They are ordered the way Oxia orders them: segment by segment across
 * {@code '/'}, where at each level a key with no further {@code '/'} sorts before one that has one, and
 * segments compare as bytes. Keys without {@code '/'} therefore compare plainly as bytes. Ranges are
 * {@code [startInclusive, endExclusive)} in that order.
 *
 * <h2>Partition keys</h2>
 * A partition key places a record on the shard the partition key hashes to, so that all records of one
 * partition key live together and reads, scans and deletes given the same partition key go to that one
 * shard. It is a placement hint, not a filter: a scan with a partition key returns every key of the range
 * on that shard. Records written with a partition key must be read, deleted and scanned with it.
 *
 * <h2>Sequence keys</h2>
 * {@code put(prefix, value, PutOptions.sequenceKeyDeltas(d0, d1, ...))} stores the record under
 * {@code prefix + "-" + %020d(c0) + "-" + %020d(c1) ...}, where each counter {@code ci} is the previous
 * one plus {@code di}, atomically. The counters are those of the highest key present under the prefix, so
 * deleting every key of a prefix restarts them from zero. It needs a partition key; {@code d0 >= 1}, the
 * others {@code >= 0}.
 *
 * <h2>Errors</h2>
 * Futures fail with a {@link MetadataStoreException} subclass naming the store's address and the key.
 */
public interface MetadataStore extends AutoCloseable {

    /** The record at exactly {@code key}, or empty. */
    default CompletableFuture<Optional<Record>> get(String key) {
        return get(key, GetOptions.DEFAULT);
    }

    /** The record found by comparing {@code key} as {@code options} say (equal, floor, ceiling, lower, higher). */
    CompletableFuture<Optional<Record>> get(String key, GetOptions options);

    /** Writes {@code value} under {@code key} unconditionally. */
    default CompletableFuture<PutResult> put(String key, byte[] value) {
        return put(key, value, PutOptions.DEFAULT);
    }

    /**
     * Writes {@code value} as {@code options} say. A failed condition fails with
     * {@link KeyAlreadyExistsException} (expected absent) or {@link UnexpectedVersionException}.
     *
     * @return the key written (for sequence keys, the key the store assigned) and its new version
     */
    CompletableFuture<PutResult> put(String key, byte[] value, PutOptions options);

    /**
     * Deletes {@code key}. Completes with {@code false} when there was nothing to delete; fails with
     * {@link UnexpectedVersionException} when an expected version is given and does not match.
     */
    CompletableFuture<Boolean> delete(String key, DeleteOptions options);

    default CompletableFuture<Boolean> delete(String key) {
        return delete(key, DeleteOptions.DEFAULT);
    }

    /** Deletes every key in {@code [startInclusive, endExclusive)}; unconditional. */
    CompletableFuture<Void> deleteRange(String startInclusive, String endExclusive, Optional<String> partitionKey);

    /** The keys in {@code [startInclusive, endExclusive)}, in key order. */
    CompletableFuture<List<String>> list(String startInclusive, String endExclusive, Optional<String> partitionKey);

    /**
     * The records in {@code [startInclusive, endExclusive)}, in key order, at most {@code limit} of them
     * ({@code limit <= 0}: no limit).
     */
    CompletableFuture<List<Record>> rangeScan(String startInclusive, String endExclusive,
                                              Optional<String> partitionKey, int limit);

    /**
     * Calls {@code listener} for every change to any key, from now on, on a store thread (the listener must
     * not block). Changes by this process and by others are reported. Close the handle to stop.
     */
    AutoCloseable addListener(Consumer<Notification> listener);

    /** The store's address, for messages: e.g. {@code oxia://host:6648/default} or {@code embedded:/data/md}. */
    String address();

    /**
     * Closes the store. The session ends, so this client's ephemeral records are removed (by Oxia when the
     * session is closed or times out; by the embedded store at once).
     */
    @Override
    void close();
}
