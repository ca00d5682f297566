package dev.lakestream.core.metadata.oxia;

import dev.lakestream.core.collect.LruMap;
import dev.lakestream.core.concurrent.DaemonThreads;
import dev.lakestream.core.metadata.Comparison;
import dev.lakestream.core.metadata.DeleteOptions;
import dev.lakestream.core.metadata.GetOptions;
import dev.lakestream.core.metadata.InvalidKeyException;
import dev.lakestream.core.metadata.KeyAlreadyExistsException;
import dev.lakestream.core.metadata.KeyOrder;
import dev.lakestream.core.metadata.MetadataKeys;
import dev.lakestream.core.metadata.MetadataListeners;
import dev.lakestream.core.metadata.MetadataStore;
import dev.lakestream.core.metadata.MetadataStoreException;
import dev.lakestream.core.metadata.MetadataStoreUnavailableException;
import dev.lakestream.core.metadata.Notification;
import dev.lakestream.core.metadata.PutOptions;
import dev.lakestream.core.metadata.PutResult;
import dev.lakestream.core.metadata.Record;
import dev.lakestream.core.metadata.UnexpectedVersionException;
import dev.lakestream.core.metadata.Version;
import io.oxia.client.api.AsyncOxiaClient;
import io.oxia.client.api.GetResult;
import io.oxia.client.api.OxiaClientBuilder;
import io.oxia.client.api.RangeScanConsumer;
import io.oxia.client.api.SharedResources;
import io.oxia.client.api.exceptions.SessionDoesNotExistException;
import io.oxia.client.api.exceptions.UnexpectedVersionIdException;
import io.oxia.client.api.options.DeleteOption;
import io.oxia.client.api.options.DeleteRangeOption;
import io.oxia.client.api.options.GetOption;
import io.oxia.client.api.options.ListOption;
import io.oxia.client.api.options.PutOption;
import io.oxia.client.api.options.RangeScanOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link MetadataStore} on a real Oxia cluster, through the Oxia Java client's {@link AsyncOxiaClient}.
 *
 * <h2>Threads</h2>
 * No call blocks its caller (except {@link #open} and {@link #close}). The futures returned complete on this
 * store's callback threads ({@code lakestream-oxia-callback-N}, a pool that grows with demand and shrinks when
 * idle), never on the Oxia client's gRPC or batching threads: a caller that chains slow work onto a future
 * (or even blocks in it) cannot stall the client's I/O. A future that fails input validation is returned
 * already failed. Listeners run on one dedicated thread ({@code lakestream-oxia-notify}), one notification at
 * a time, in the order the client received them.
 *
 * <h2>What Oxia does that callers may not expect</h2>
 * <ul>
 * <li>The key order is the server's hierarchical order ({@link KeyOrder}). The client sorts the result of a
 *     {@code list} without partition key by another comparator (a per-segment comparison of UTF-16 chars);
 *     this store re-sorts it in {@link KeyOrder}, so list and rangeScan agree.</li>
 * <li>A rangeScan without a partition key runs on every shard in parallel and Oxia interleaves the shards'
 *     records. This store then reads the whole range, sorts and keeps the first {@code limit}; with a partition
 *     key (one shard, records in order) it stops the scan after {@code limit} records.</li>
 * <li>Notifications of one server write batch (the client batches concurrent writes) arrive in no particular
 *     order, with only the last change per key of the batch; batches arrive in commit order per shard.</li>
 * <li>Ephemeral records are bound to the client's session, created lazily by the first ephemeral put; closing
 *     the store closes it and the server deletes them at once. After a crash they live until the session times
 *     out ({@link OxiaMetadataStoreConfig#sessionTimeout()}).</li>
 * </ul>
 */
public final class OxiaMetadataStore implements MetadataStore {

    private static final Logger LOG = LoggerFactory.getLogger(OxiaMetadataStore.class);

    private final OxiaMetadataStoreConfig config;
    private final String address;
    private final SharedResources resources;
    private final AsyncOxiaClient client;
    private final ThreadPoolExecutor callbackPool;
    private final Executor callbacks;
    private final MetadataListeners listeners;
    private final AtomicBoolean subscribed = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Per sequence, how many counters its last key has (as far as this client knows); bounded, LRU. */
    private final Map<SequenceKey, Integer> sequenceCounters =
            java.util.Collections.synchronizedMap(new LruMap<>(10_000));

    private OxiaMetadataStore(OxiaMetadataStoreConfig config, SharedResources resources, AsyncOxiaClient client) {
        this.config = config;
        this.address = config.address();
        this.resources = resources;
        this.client = client;
        this.callbackPool = new ThreadPoolExecutor(
                0,
                Integer.MAX_VALUE,
                30,
                TimeUnit.SECONDS,
                new SynchronousQueue<>(),
                DaemonThreads.numbered("lakestream-oxia-callback-"));
        this.callbacks = task -> {
            try {
                callbackPool.execute(task);
            } catch (RejectedExecutionException e) {
                // Only after close: complete where we are rather than never.
                task.run();
            }
        };
        this.listeners = new MetadataListeners(address, "lakestream-oxia-notify", Duration.ofSeconds(5));
    }

    /**
     * Connects to Oxia, waiting at most {@link OxiaMetadataStoreConfig#connectTimeout()} for the server's shard
     * assignments.
     *
     * @throws MetadataStoreUnavailableException when the server cannot be reached in time
     * @throws MetadataStoreException when the server refuses the client (e.g. unknown namespace)
     */
    public static OxiaMetadataStore open(OxiaMetadataStoreConfig config) {
        try {
            return openAsync(config).join();
        } catch (CompletionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof MetadataStoreException m) {
                throw m;
            }
            throw new MetadataStoreException(config.address() + ": could not open: " + cause, cause);
        }
    }

    /** Like {@link #open}, without blocking. */
    public static CompletableFuture<OxiaMetadataStore> openAsync(OxiaMetadataStoreConfig config) {
        String address = config.address();
        CompletableFuture<OxiaMetadataStore> result = new CompletableFuture<>();
        // Our own resources (executor, connections, shard-assignment stream), so that giving up after the
        // connect timeout can stop the client's endless retries by closing them.
        SharedResources resources;
        CompletableFuture<AsyncOxiaClient> connecting;
        try {
            // TLS is a setting of the connections, so of the shared resources that own them.
            resources = SharedResources.builder().enableTls(config.tls()).build();
            connecting = OxiaClientBuilder.create(config.serviceAddress())
                    .namespace(config.namespace())
                    .requestTimeout(config.requestTimeout())
                    .sessionTimeout(config.sessionTimeout())
                    .sharedResources(resources)
                    .asyncClient();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(
                    new MetadataStoreException(address + ": could not create the Oxia client: " + e, e));
        }
        var unused = connecting.whenComplete((c, error) -> { // completes result, which the caller gets
            if (error == null) {
                OxiaMetadataStore store = new OxiaMetadataStore(config, resources, c);
                if (!result.complete(store)) {
                    store.close(); // timed out meanwhile
                }
            } else {
                Throwable cause = unwrap(error);
                closeQuietly(resources);
                if (cause.getClass().getSimpleName().contains("NamespaceNotFound")) {
                    result.completeExceptionally(new MetadataStoreException(
                            address + ": namespace '"
                                    + config.namespace() + "' (" + OxiaMetadataStoreConfig.NAMESPACE
                                    + ") does not exist on the Oxia server at " + config.serviceAddress(),
                            cause));
                } else {
                    result.completeExceptionally(new MetadataStoreUnavailableException(
                            address + ": could not connect to Oxia at " + config.serviceAddress() + ": " + cause,
                            cause));
                }
            }
        });
        CompletableFuture.delayedExecutor(config.connectTimeout().toMillis(), TimeUnit.MILLISECONDS)
                .execute(() -> {
                    if (result.completeExceptionally(new MetadataStoreUnavailableException(address
                            + ": could not connect to Oxia at " + config.serviceAddress() + " within "
                            + config.connectTimeout().toMillis() + " ms (" + OxiaMetadataStoreConfig.CONNECT_TIMEOUT
                            + "): no shard assignments received (connecting " + (config.tls() ? "with" : "without")
                            + " TLS, " + OxiaMetadataStoreConfig.TLS + "=" + config.tls() + ": a server that "
                            + (config.tls()
                                    ? "serves no TLS, or whose certificate the JVM's trust store does not vouch for,"
                                    : "serves TLS")
                            + " looks like this)"))) {
                        closeQuietly(resources); // stops the client's reconnect loop
                    }
                });
        return result;
    }

    public OxiaMetadataStoreConfig config() {
        return config;
    }

    @Override
    public String address() {
        return address;
    }

    // ---------------------------------------------------------------- reads

    @Override
    public CompletableFuture<Optional<Record>> get(String key, GetOptions options) {
        try {
            checkOpen();
            MetadataKeys.checkGet(address, key, options);
            Set<GetOption> opts = new HashSet<>();
            opts.add(toOxia(options.comparison()));
            opts.add(GetOption.IncludeValue(options.includeValue()));
            options.partitionKey().ifPresent(p -> opts.add(GetOption.PartitionKey(p)));
            return complete(
                    client.get(key, opts),
                    "get",
                    key,
                    PutOptions.ANY_VERSION,
                    r -> Optional.ofNullable(r).map(g -> toRecord(g, options.includeValue())));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(map(e, "get", key, PutOptions.ANY_VERSION));
        }
    }

    @Override
    public CompletableFuture<List<String>> list(
            String startInclusive, String endExclusive, Optional<String> partitionKey) {
        try {
            checkOpen();
            MetadataKeys.checkRange(address, startInclusive, endExclusive, partitionKey);
            Set<ListOption> opts = new HashSet<>();
            partitionKey.ifPresent(p -> opts.add(ListOption.PartitionKey(p)));
            return complete(
                    client.list(startInclusive, endExclusive, opts),
                    "list",
                    startInclusive,
                    PutOptions.ANY_VERSION,
                    keys -> {
                        List<String> sorted = new ArrayList<>(keys);
                        sorted.sort(KeyOrder.COMPARATOR);
                        return sorted;
                    });
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(map(e, "list", startInclusive, PutOptions.ANY_VERSION));
        }
    }

    @Override
    public CompletableFuture<List<Record>> rangeScan(
            String startInclusive, String endExclusive, Optional<String> partitionKey, int limit) {
        try {
            checkOpen();
            MetadataKeys.checkRange(address, startInclusive, endExclusive, partitionKey);
            Set<RangeScanOption> opts = new HashSet<>();
            partitionKey.ifPresent(p -> opts.add(RangeScanOption.PartitionKey(p)));
            // With a partition key one shard streams its records in key order, so we can stop at the limit.
            boolean stopAtLimit = limit > 0 && partitionKey.isPresent();
            CompletableFuture<List<GetResult>> scanned = new CompletableFuture<>();
            // The client's callback scan has no deadline of its own: with the server gone it would never end.
            scanned.orTimeout(config.requestTimeout().toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
            List<GetResult> results = new ArrayList<>();
            client.rangeScan(
                    startInclusive,
                    endExclusive,
                    new RangeScanConsumer() {
                        @Override
                        public boolean onNext(GetResult result) {
                            synchronized (results) {
                                if (scanned.isDone()) {
                                    return false;
                                }
                                results.add(result);
                                if (stopAtLimit && results.size() >= limit) {
                                    scanned.complete(List.copyOf(results));
                                    return false;
                                }
                                return true;
                            }
                        }

                        @Override
                        public void onError(Throwable throwable) {
                            scanned.completeExceptionally(throwable);
                        }

                        @Override
                        public void onCompleted() {
                            synchronized (results) {
                                scanned.complete(List.copyOf(results));
                            }
                        }
                    },
                    opts);
            return complete(scanned, "rangeScan", startInclusive, PutOptions.ANY_VERSION, list -> {
                List<Record> records = new ArrayList<>(list.size());
                for (GetResult g : list) {
                    records.add(toRecord(g, true));
                }
                records.sort((a, b) -> KeyOrder.compare(a.key(), b.key()));
                return limit > 0 && records.size() > limit ? List.copyOf(records.subList(0, limit)) : records;
            });
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(map(e, "rangeScan", startInclusive, PutOptions.ANY_VERSION));
        }
    }

    // ---------------------------------------------------------------- writes

    @Override
    public CompletableFuture<PutResult> put(String key, byte[] value, PutOptions options) {
        try {
            checkOpen();
            MetadataKeys.checkPut(address, key, value, options);
            Set<PutOption> opts = new HashSet<>();
            long expected = options.expectedVersionId();
            if (expected == PutOptions.ABSENT) {
                opts.add(PutOption.IfRecordDoesNotExist);
            } else if (expected != PutOptions.ANY_VERSION) {
                opts.add(PutOption.IfVersionIdEquals(expected));
            }
            options.partitionKey().ifPresent(p -> opts.add(PutOption.PartitionKey(p)));
            if (options.ephemeral()) {
                opts.add(PutOption.AsEphemeralRecord);
            }
            if (!options.isSequenceKeyPut()) {
                return complete(
                        client.put(key, value, opts),
                        "put",
                        key,
                        expected,
                        r -> new PutResult(r.key() == null ? key : r.key(), toVersion(r.version())));
            }
            opts.add(PutOption.SequenceKeysDeltas(options.sequenceKeyDeltas()));
            String partition = options.partitionKey().orElseThrow();
            List<Long> deltas = options.sequenceKeyDeltas();
            SequenceKey seqKey = new SequenceKey(partition, key);
            return checkSequenceCounters(seqKey, deltas)
                    .thenCompose(ok -> complete(client.put(key, value, opts), "sequence put", key, expected, r -> {
                        sequenceCounters.put(seqKey, deltas.size()); // counters of the sequence's new last key
                        return new PutResult(r.key(), toVersion(r.version()));
                    }));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(
                    map(e, "put", key, options == null ? 0 : options.expectedVersionId()));
        }
    }

    /** A sequence: its partition key and prefix. */
    private record SequenceKey(String partitionKey, String prefix) {}

    /**
     * Refuses locally a sequence put with fewer deltas than the sequence's last key has counters.
     *
     * <p>The server would refuse it too, but Oxia (v0.15) has already appended the request to its WAL by then,
     * and replaying that entry fails on the next start: the shard can no longer start. So before the first
     * sequence put of a prefix (and whenever it is given fewer deltas than last time) this store reads the last
     * key of the sequence and checks; afterwards it remembers the counters of the key it got.
     */
    private CompletableFuture<Void> checkSequenceCounters(SequenceKey seq, List<Long> deltas) {
        Integer known = sequenceCounters.get(seq);
        if (known != null && known <= deltas.size()) {
            return CompletableFuture.completedFuture(null);
        }
        Set<GetOption> opts =
                Set.of(GetOption.ComparisonLower, GetOption.ExcludeValue, GetOption.PartitionKey(seq.partitionKey()));
        return complete(
                client.get(MetadataKeys.sequenceSearchKey(seq.prefix()), opts),
                "sequence put",
                seq.prefix(),
                PutOptions.ANY_VERSION,
                last -> {
                    // Throws InvalidKeyException when the last key has more counters than deltas, or bad ones.
                    MetadataKeys.nextSequenceKey(address, seq.prefix(), last == null ? null : last.key(), deltas);
                    return null;
                });
    }

    @Override
    public CompletableFuture<Boolean> delete(String key, DeleteOptions options) {
        try {
            checkOpen();
            MetadataKeys.checkDelete(address, key, options);
            long expected = options.expectedVersionId();
            if (expected == PutOptions.ABSENT) {
                // "Delete if absent": nothing to delete when absent, a version mismatch when present (what the
                // server answers to expected version -1; the client API cannot send it).
                GetOptions get = GetOptions.DEFAULT.withoutValue();
                if (options.partitionKey().isPresent()) {
                    get = get.partitionKey(options.partitionKey().get());
                }
                return get(key, get).thenApply(r -> {
                    if (r.isPresent()) {
                        throw new UnexpectedVersionException(
                                address + ": key '" + key + "' exists (version "
                                        + r.get().version().versionId() + ") but was expected absent",
                                key,
                                expected);
                    }
                    return false;
                });
            }
            Set<DeleteOption> opts = new HashSet<>();
            if (expected != PutOptions.ANY_VERSION) {
                opts.add(DeleteOption.IfVersionIdEquals(expected));
            }
            options.partitionKey().ifPresent(p -> opts.add(DeleteOption.PartitionKey(p)));
            return complete(client.delete(key, opts), "delete", key, expected, b -> b);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(
                    map(e, "delete", key, options == null ? 0 : options.expectedVersionId()));
        }
    }

    @Override
    public CompletableFuture<Void> deleteRange(
            String startInclusive, String endExclusive, Optional<String> partitionKey) {
        try {
            checkOpen();
            MetadataKeys.checkRange(address, startInclusive, endExclusive, partitionKey);
            Set<DeleteRangeOption> opts = new HashSet<>();
            partitionKey.ifPresent(p -> opts.add(DeleteRangeOption.PartitionKey(p)));
            return complete(
                    client.deleteRange(startInclusive, endExclusive, opts),
                    "deleteRange",
                    startInclusive,
                    PutOptions.ANY_VERSION,
                    v -> null);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(map(e, "deleteRange", startInclusive, PutOptions.ANY_VERSION));
        }
    }

    // ---------------------------------------------------------------- notifications

    @Override
    public AutoCloseable addListener(Consumer<Notification> listener) {
        checkOpen();
        AutoCloseable handle = listeners.add(listener);
        if (subscribed.compareAndSet(false, true)) {
            // The client cannot unsubscribe; one subscription feeds all our listeners.
            client.notifications(n -> {
                Notification mapped = toNotification(n);
                if (mapped != null) {
                    listeners.publish(mapped);
                }
            });
        }
        return handle;
    }

    private static Notification toNotification(io.oxia.client.api.Notification n) {
        return switch (n) {
            case io.oxia.client.api.Notification.KeyCreated c -> new Notification.KeyCreated(c.key(), c.version());
            case io.oxia.client.api.Notification.KeyModified m -> new Notification.KeyModified(m.key(), m.version());
            case io.oxia.client.api.Notification.KeyDeleted d -> new Notification.KeyDeleted(d.key());
            case io.oxia.client.api.Notification.KeyRangeDelete r ->
                new Notification.KeyRangeDeleted(r.startKeyInclusive(), r.endKeyExclusive());
            case null, default -> null;
        };
    }

    // ---------------------------------------------------------------- close

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            client.close(); // closes the session: the server deletes our ephemeral records now
        } catch (Exception e) {
            LOG.warn("{}: closing the Oxia client failed", address, e);
        }
        closeQuietly(resources);
        callbackPool.shutdown();
        listeners.close();
    }

    @Override
    public String toString() {
        return "OxiaMetadataStore[" + address + "]";
    }

    // ---------------------------------------------------------------- helpers

    private void checkOpen() {
        if (closed.get()) {
            throw new MetadataStoreUnavailableException(address + ": the store is closed");
        }
    }

    /** Maps the result and the failure of an Oxia future on our callback threads. */
    private <T, R> CompletableFuture<R> complete(
            CompletableFuture<T> oxia, String op, String key, long expected, java.util.function.Function<T, R> mapper) {
        return oxia.handleAsync(
                (value, error) -> {
                    if (error != null) {
                        throw map(error, op, key, expected);
                    }
                    return mapper.apply(value);
                },
                callbacks);
    }

    private MetadataStoreException map(Throwable error, String op, String key, long expected) {
        Throwable t = unwrap(error);
        if (t instanceof MetadataStoreException m) {
            return m;
        }
        String what = address + ": " + op + " of key '" + key + "'";
        if (t instanceof io.oxia.client.api.exceptions.KeyAlreadyExistsException) {
            return new KeyAlreadyExistsException(what + " failed: the key already exists", t);
        }
        if (t instanceof UnexpectedVersionIdException) {
            String expectation = expected == PutOptions.ABSENT ? "absent" : "at version " + expected;
            return new UnexpectedVersionException(what + " failed: the record is not " + expectation, key, expected);
        }
        if (t instanceof SessionDoesNotExistException) {
            return new MetadataStoreUnavailableException(what + " failed: the client's session expired", t);
        }
        if (t instanceof TimeoutException) {
            return new MetadataStoreUnavailableException(
                    what + " timed out after " + config.requestTimeout().toMillis() + " ms ("
                            + OxiaMetadataStoreConfig.REQUEST_TIMEOUT + ")",
                    t);
        }
        String grpcCode = grpcCode(t);
        if (grpcCode != null) {
            return switch (grpcCode) {
                case "UNAVAILABLE", "DEADLINE_EXCEEDED", "CANCELLED", "ABORTED", "RESOURCE_EXHAUSTED" ->
                    new MetadataStoreUnavailableException(what + " failed: server unavailable: " + t.getMessage(), t);
                case "INVALID_ARGUMENT" -> new InvalidKeyException(what + " was refused: " + t.getMessage(), t);
                default -> new MetadataStoreException(what + " failed: " + t.getMessage(), t);
            };
        }
        if (t.getClass().getName().equals("io.oxia.client.grpc.OxiaStatusException")
                && String.valueOf(t.getMessage()).contains("sequential key")) {
            // e.g. fewer deltas than the last key of the sequence has counters
            return new InvalidKeyException(what + " was refused: " + t.getMessage(), t);
        }
        if (t instanceof io.oxia.client.grpc.OxiaStatusException s
                && (s.isRetryable()
                        || s.getStatusCode() == io.oxia.client.grpc.OxiaStatusCode.TIMEOUT
                        || s.getStatusCode() == io.oxia.client.grpc.OxiaStatusCode.SHARD_NOT_FOUND)) {
            // The client's own timeouts (which it does not call retryable) and leader or shard unavailability:
            // the server may answer again later.
            return new MetadataStoreUnavailableException(what + " failed: server unavailable: " + t.getMessage(), t);
        }
        if (t instanceof IllegalArgumentException) {
            return new InvalidKeyException(what + " was refused: " + t.getMessage(), t);
        }
        if (t instanceof IllegalStateException && closed.get()) {
            return new MetadataStoreUnavailableException(what + " failed: the store is closed", t);
        }
        if (t instanceof java.io.IOException || t.getClass().getName().startsWith("io.oxia.client.shard.")) {
            return new MetadataStoreUnavailableException(what + " failed: " + t, t);
        }
        return new MetadataStoreException(what + " failed: " + t, t);
    }

    /** The gRPC status code of a gRPC exception (the client has gRPC at run time only), else null. */
    private static String grpcCode(Throwable t) {
        String name = t.getClass().getName();
        if (!name.equals("io.grpc.StatusRuntimeException") && !name.equals("io.grpc.StatusException")) {
            return null;
        }
        String msg = String.valueOf(t.getMessage());
        int colon = msg.indexOf(':');
        return colon > 0 ? msg.substring(0, colon) : msg;
    }

    private static Throwable unwrap(Throwable t) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    private static Record toRecord(GetResult g, boolean includeValue) {
        byte[] value = includeValue && g.value() != null ? g.value() : new byte[0];
        return new Record(g.key(), value, toVersion(g.version()));
    }

    private static Version toVersion(io.oxia.client.api.Version v) {
        return new Version(
                v.versionId(),
                v.modificationsCount(),
                v.createdTimestamp(),
                v.modifiedTimestamp(),
                v.sessionId().orElse(Version.NO_SESSION));
    }

    private static void closeQuietly(SharedResources resources) {
        try {
            resources.close();
        } catch (RuntimeException e) {
            LOG.debug("Closing Oxia client resources failed", e);
        }
    }

    private static GetOption toOxia(Comparison c) {
        return switch (c) {
            case EQUAL -> GetOption.ComparisonEqual;
            case FLOOR -> GetOption.ComparisonFloor;
            case CEILING -> GetOption.ComparisonCeiling;
            case LOWER -> GetOption.ComparisonLower;
            case HIGHER -> GetOption.ComparisonHigher;
        };
    }
}
