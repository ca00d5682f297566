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
 * Keys are non-empty, well-formed Unicode strings (stored as UTF-8) that do not start with Oxia's internal
 * prefix {@code "__oxia/"}. They are ordered the way an Oxia server (v0.15+, "hierarchical" key sorting, its
 * default) orders them, see {@link KeyOrder}: <em>first by the number of {@code '/'} in the key</em>, then byte
 * by byte (UTF-8) with {@code '/'} above every other character. So {@code "a" < "/a" < "/ab" < "/z" < "/a/b"
 * < "/b/c" < "/a/b/c"}: a range {@code [startInclusive, endExclusive)} between two keys of one depth holds no
 * deeper key, and the direct children of {@code "/x"} are exactly {@code ["/x/", "/x//")}. (This is not the
 * per-segment order older Oxia servers used, nor the order the Oxia Java client sorts a multi-shard
 * {@code list} by; the Oxia store re-sorts.)
 *
 * <h2>Partition keys</h2>
 * A partition key places a record on the shard the partition key hashes to, so that all records of one
 * partition key live together and reads, scans and deletes given the same partition key go to that one
 * shard. It is a placement hint, not a filter: a scan with a partition key returns every key of the range
 * on that shard, whatever partition key (if any) it was written with; on a one-shard namespace and in the
 * embedded store that is every key of the range. Records written with a partition key must be read, deleted
 * and scanned with it. Without one, Oxia asks every shard; on a namespace of several shards the Oxia client
 * then picks the answer of a floor/ceiling/lower/higher get with a comparator other than the key order and
 * can return a wrong key, so give those gets a partition key there.
 *
 * <h2>Sequence keys</h2>
 * {@code put(prefix, value, PutOptions.sequenceKeyDeltas(d0, d1, ...))} stores the record under
 * {@code prefix + "-" + %020d(c0) + "-" + %020d(c1) ...}, where each counter {@code ci} is the previous
 * one plus {@code di}, atomically. As Oxia does it, the previous counters are read from the highest key
 * below {@code prefix + "-18446744073709551615"} (in key order, on the partition key's shard) if that key
 * starts with the prefix, else they are zero; a counter with no previous value starts from zero. So deleting
 * every key of a prefix restarts the counters. It needs a partition key and no expected version;
 * {@code d0 >= 1}, the others {@code >= 0}, and at least as many deltas as the last key has counters.
 *
 * <h2>Errors</h2>
 * Futures fail with a {@link MetadataStoreException} subclass naming the store's address and the key. Invalid
 * input fails with {@link InvalidKeyException} before anything is sent.
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
    CompletableFuture<List<Record>> rangeScan(
            String startInclusive, String endExclusive, Optional<String> partitionKey, int limit);

    /**
     * Calls {@code listener} for every change to any key, from now on, on a store thread (the listener must
     * not block). Changes by this process and by others are reported. Close the handle to stop.
     *
     * <p>Changes arrive in commit order, except that Oxia reports the changes of one server write batch (its
     * client batches concurrent writes) in no particular order and only the last change per key of the batch.
     * Oxia's first subscription of a client starts asynchronously: changes made right after the first
     * {@code addListener} may be missed until it is established. A deleteRange is reported as
     * {@link Notification.KeyRangeDeleted} whether or not the range held keys.
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
