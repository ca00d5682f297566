package dev.lakestream.pulsar.conformance;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lakestream.core.Lakestream;
import dev.lakestream.core.LakestreamConfig;
import dev.lakestream.core.metadata.MetadataStore;
import dev.lakestream.core.objectstore.ObjectStore;
import dev.lakestream.core.wal.WalWriterConfig;
import dev.lakestream.pulsar.LakestreamManagedLedgerFactory;
import java.lang.reflect.Method;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import org.apache.bookkeeper.mledger.AsyncCallbacks;
import org.apache.bookkeeper.mledger.Entry;
import org.apache.bookkeeper.mledger.ManagedCursor;
import org.apache.bookkeeper.mledger.ManagedLedger;
import org.apache.bookkeeper.mledger.ManagedLedgerConfig;
import org.apache.bookkeeper.mledger.ManagedLedgerException;
import org.apache.bookkeeper.mledger.ManagedLedgerFactory;
import org.apache.bookkeeper.mledger.ManagedLedgerFactoryConfig;
import org.apache.bookkeeper.mledger.Position;
import org.apache.bookkeeper.mledger.PositionFactory;
import org.apache.pulsar.metadata.api.MetadataStoreConfig;
import org.apache.pulsar.metadata.api.extended.MetadataStoreExtended;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Black-box conformance suite for Pulsar's managed-ledger API ({@code org.apache.bookkeeper.mledger}) as
 * implemented by {@link LakestreamManagedLedgerFactory}. The tests state the behaviour of Pulsar's own
 * {@code ManagedLedgerImpl}/{@code ManagedCursorImpl} that the broker relies on, using only the public API.
 *
 * <p>The fixture: each test gets a fresh pair of stores from {@link #openStores(Path)} (the concrete subclasses
 * choose the embedded pair or the remote pair), a fresh in-memory broker metadata store, a core log on the stores
 * and a factory on both. Topic-specific abstract classes extend this one; {@code Embedded…Test} and
 * {@code Remote…Test} subclasses bind them to a backend.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
public abstract class ManagedLedgerConformanceTest {

    /** How long a test waits for any single callback or future. */
    protected static final Duration WAIT = Duration.ofSeconds(30);

    /** How long a test watches something that must NOT happen (a parked read, a cancelled callback). */
    protected static final Duration QUIET = Duration.ofMillis(300);

    /**
     * Fast batching (a few ms) so adds complete quickly, and cursor state persisted every 50 ms (instead of 1 s) so
     * acknowledgements that wait for persistence do not dominate the run time.
     */
    protected static final LakestreamConfig LOG_CONFIG = new LakestreamConfig(
            LakestreamConfig.DEFAULT.metadataRoot(),
            new WalWriterConfig(1 << 20, Duration.ofMillis(3), 64L << 20, WalWriterConfig.WhenFull.WAIT),
            LakestreamConfig.DEFAULT.reader(),
            LakestreamConfig.DEFAULT.tailPollInterval(),
            Duration.ofMillis(50));

    /** The two stores the core log runs on; the test owns and closes them. */
    public record Stores(ObjectStore objects, MetadataStore metadata, AutoCloseable extra) implements AutoCloseable {
        public Stores(ObjectStore objects, MetadataStore metadata) {
            this(objects, metadata, null);
        }

        @Override
        public void close() throws Exception {
            try {
                metadata.close();
            } finally {
                try {
                    objects.close();
                } finally {
                    if (extra != null) {
                        extra.close();
                    }
                }
            }
        }
    }

    /** The fixture method: a fresh pair of stores for one test ({@code scratch} is a per-test temporary dir). */
    protected abstract Stores openStores(Path scratch) throws Exception;

    @TempDir
    protected Path tempDir;

    protected Stores stores;
    protected MetadataStoreExtended brokerStore;
    protected Lakestream log;
    protected ManagedLedgerFactory factory;
    /** A managed-ledger name unique to this test (tenant/namespace/persistent/topic, as the broker names them). */
    protected String name;

    private final List<AutoCloseable> abandoned = new ArrayList<>();

    @BeforeEach
    void openConformanceFixture(TestInfo info) throws Exception {
        stores = openStores(tempDir);
        brokerStore = MetadataStoreExtended.create(
                "memory:conformance-" + UUID.randomUUID(),
                MetadataStoreConfig.builder().build());
        log = Lakestream.open(stores.objects(), stores.metadata(), LOG_CONFIG);
        factory = newFactory(log);
        String method = info.getTestMethod().map(Method::getName).orElse("test");
        name = "conformance/ns/persistent/" + method + "-"
                + UUID.randomUUID().toString().substring(0, 8);
    }

    @AfterEach
    void closeConformanceFixture() {
        ManagedLedgerFactory f = factory;
        quietly(() -> f.shutdownAsync().get(20, TimeUnit.SECONDS));
        Lakestream l = log;
        quietly(l::close);
        List<AutoCloseable> rest = new ArrayList<>(abandoned);
        Collections.reverse(rest);
        for (AutoCloseable c : rest) {
            quietly(c::close);
        }
        quietly(brokerStore::close);
        quietly(stores::close);
    }

    protected ManagedLedgerFactory newFactory(Lakestream onLog) throws Exception {
        return new LakestreamManagedLedgerFactory(onLog, brokerStore, new ManagedLedgerFactoryConfig());
    }

    /** A clean restart: shuts the factory down, closes the core log, opens both again on the same stores. */
    protected ManagedLedgerFactory restart() throws Exception {
        factory.shutdown();
        log.close();
        log = Lakestream.open(stores.objects(), stores.metadata(), LOG_CONFIG);
        factory = newFactory(log);
        return factory;
    }

    /**
     * A "crash": the factory (and every ledger and cursor it has open) is abandoned without being closed; only the
     * core log is closed, as the process dying would stop it. A second log and factory then open on the same stores
     * and the same broker metadata store, as the next owner of the topic would.
     */
    protected ManagedLedgerFactory crash() throws Exception {
        ManagedLedgerFactory old = factory;
        log.close();
        // Shut the abandoned factory down only when the test is over (it can no longer write: its log is closed).
        abandoned.add(() -> old.shutdownAsync().get(20, TimeUnit.SECONDS));
        log = Lakestream.open(stores.objects(), stores.metadata(), LOG_CONFIG);
        factory = newFactory(log);
        return factory;
    }

    // ------------------------------------------------------------------ ledgers

    protected ManagedLedgerConfig config() {
        return new ManagedLedgerConfig();
    }

    protected ManagedLedger open() throws Exception {
        return factory.open(name, config());
    }

    protected ManagedLedger open(ManagedLedgerConfig config) throws Exception {
        return factory.open(name, config);
    }

    /** Adds {@code prefix-0 .. prefix-(n-1)} synchronously and returns their positions. */
    protected static List<Position> addEntries(ManagedLedger ml, String prefix, int n) throws Exception {
        List<Position> positions = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            positions.add(ml.addEntry(bytes(prefix + "-" + i)));
        }
        return positions;
    }

    // ------------------------------------------------------------------ data

    protected static byte[] bytes(String s) {
        return s.getBytes(UTF_8);
    }

    /** What an entry held, copied out before the entry is released. */
    public record Read(Position position, String text) {
        public Read {
            position = PositionFactory.create(position.getLedgerId(), position.getEntryId());
        }
    }

    /** Copies the entries out and releases them. */
    protected static List<Read> drain(List<Entry> entries) {
        List<Read> out = new ArrayList<>();
        try {
            for (Entry e : entries) {
                out.add(new Read(e.getPosition(), new String(e.getData(), UTF_8)));
            }
        } finally {
            entries.forEach(Entry::release);
        }
        return out;
    }

    protected static List<String> texts(List<Read> reads) {
        return reads.stream().map(Read::text).toList();
    }

    protected static List<Position> positionsOf(List<Read> reads) {
        return reads.stream().map(Read::position).toList();
    }

    /** Reads everything the cursor has left, in batches. */
    protected static List<Read> readAll(ManagedCursor cursor) throws Exception {
        List<Read> all = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            List<Entry> batch = cursor.readEntries(100);
            if (batch.isEmpty()) {
                return all;
            }
            all.addAll(drain(batch));
        }
        throw new AssertionError("cursor " + cursor.getName() + " never reached the end");
    }

    protected static List<String> names(String prefix, int from, int to) {
        List<String> out = new ArrayList<>();
        for (int i = from; i < to; i++) {
            out.add(prefix + "-" + i);
        }
        return out;
    }

    // ------------------------------------------------------------------ positions

    protected static Position norm(Position p) {
        return p == null ? null : PositionFactory.create(p.getLedgerId(), p.getEntryId());
    }

    protected static List<Position> norm(Collection<? extends Position> ps) {
        return ps.stream().map(ManagedLedgerConformanceTest::norm).toList();
    }

    /** Positions compare by (ledgerId, entryId) whatever their class. */
    protected static void assertPos(Position actual, Position expected) {
        assertThat(actual).as("position").isNotNull();
        assertThat(norm(actual)).as("position %s", actual).isEqualTo(norm(expected));
    }

    /**
     * Asserts the cursor's mark-delete position is {@code expected} or an equivalent spot: Pulsar itself may move a
     * mark-delete that sits on the last entry of a ledger to {@code (nextLedger, -1)} (when trimming), which marks
     * the same entries as deleted. Any position with no entry between it and {@code expected} is accepted.
     */
    protected static void assertMarkDelete(ManagedCursor c, Position expected) {
        Position actual = c.getMarkDeletedPosition();
        assertThat(actual).as("mark-delete position of %s", c.getName()).isNotNull();
        if (actual.getEntryId() == -1 && actual.compareTo(expected) > 0) {
            long between = c.getManagedLedger()
                    .getNumberOfEntries(com.google.common.collect.Range.openClosed(norm(expected), norm(actual)));
            assertThat(between)
                    .as("mark-delete %s is equivalent to %s", actual, expected)
                    .isZero();
            return;
        }
        assertThat(norm(actual)).as("mark-delete position of %s", c.getName()).isEqualTo(norm(expected));
    }

    protected static void assertStrictlyIncreasing(List<? extends Position> positions) {
        for (int i = 1; i < positions.size(); i++) {
            assertThat(positions.get(i).compareTo(positions.get(i - 1)))
                    .as("position %s after %s", positions.get(i), positions.get(i - 1))
                    .isPositive();
        }
    }

    // ------------------------------------------------------------------ waiting

    /** Waits for the future and returns its value, rethrowing the failure's cause. */
    protected static <T> T await(CompletableFuture<T> f) throws Exception {
        try {
            return f.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception ex) {
                throw ex;
            }
            throw e;
        } catch (TimeoutException e) {
            throw new AssertionError("no completion within " + WAIT, e);
        }
    }

    /** Asserts the future stays incomplete for {@link #QUIET}. */
    protected static void assertStaysPending(CompletableFuture<?> f) throws Exception {
        try {
            Object v = f.get(QUIET.toMillis(), TimeUnit.MILLISECONDS);
            throw new AssertionError("expected no completion, got " + v);
        } catch (TimeoutException expected) {
            // still pending
        } catch (ExecutionException e) {
            throw new AssertionError("expected no completion, got a failure", e.getCause());
        }
    }

    public interface ThrowingRunnable {
        void run() throws Exception;
    }

    protected static void quietly(ThrowingRunnable r) {
        try {
            r.run();
        } catch (Throwable ignored) {
            // best-effort cleanup
        }
    }

    // ------------------------------------------------------------------ callbacks as futures

    protected static CompletableFuture<Position> addAsync(ManagedLedger ml, byte[] data) {
        CompletableFuture<Position> f = new CompletableFuture<>();
        ml.asyncAddEntry(
                data,
                new AsyncCallbacks.AddEntryCallback() {
                    @Override
                    public void addComplete(Position position, io.netty.buffer.ByteBuf entryData, Object ctx) {
                        f.complete(position);
                    }

                    @Override
                    public void addFailed(ManagedLedgerException exception, Object ctx) {
                        f.completeExceptionally(exception);
                    }
                },
                null);
        return f;
    }

    protected static AsyncCallbacks.ReadEntriesCallback readCallback(CompletableFuture<List<Entry>> f) {
        return new AsyncCallbacks.ReadEntriesCallback() {
            @Override
            public void readEntriesComplete(List<Entry> entries, Object ctx) {
                if (!f.complete(entries)) {
                    entries.forEach(Entry::release);
                }
            }

            @Override
            public void readEntriesFailed(ManagedLedgerException exception, Object ctx) {
                f.completeExceptionally(exception);
            }
        };
    }

    protected static CompletableFuture<List<Entry>> readAsync(ManagedCursor c, int n, Position max) {
        CompletableFuture<List<Entry>> f = new CompletableFuture<>();
        c.asyncReadEntries(n, readCallback(f), null, max);
        return f;
    }

    protected static CompletableFuture<List<Entry>> readOrWaitAsync(ManagedCursor c, int n) {
        CompletableFuture<List<Entry>> f = new CompletableFuture<>();
        c.asyncReadEntriesOrWait(n, readCallback(f), null, PositionFactory.LATEST);
        return f;
    }

    protected static CompletableFuture<List<Entry>> readWithSkipOrWaitAsync(
            ManagedCursor c, int n, Position max, Predicate<Position> skip) {
        CompletableFuture<List<Entry>> f = new CompletableFuture<>();
        c.asyncReadEntriesWithSkipOrWait(n, readCallback(f), null, max, skip);
        return f;
    }

    protected static CompletableFuture<Entry> readEntryAsync(ManagedLedger ml, Position p) {
        CompletableFuture<Entry> f = new CompletableFuture<>();
        ml.asyncReadEntry(
                p,
                new AsyncCallbacks.ReadEntryCallback() {
                    @Override
                    public void readEntryComplete(Entry entry, Object ctx) {
                        if (!f.complete(entry)) {
                            entry.release();
                        }
                    }

                    @Override
                    public void readEntryFailed(ManagedLedgerException exception, Object ctx) {
                        f.completeExceptionally(exception);
                    }
                },
                null);
        return f;
    }

    protected static CompletableFuture<Void> closeAsync(ManagedLedger ml) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        ml.asyncClose(
                new AsyncCallbacks.CloseCallback() {
                    @Override
                    public void closeComplete(Object ctx) {
                        f.complete(null);
                    }

                    @Override
                    public void closeFailed(ManagedLedgerException exception, Object ctx) {
                        f.completeExceptionally(exception);
                    }
                },
                null);
        return f;
    }

    protected static CompletableFuture<Void> markDeleteAsync(ManagedCursor c, Position p, Map<String, Long> props) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        c.asyncMarkDelete(
                p,
                props,
                new AsyncCallbacks.MarkDeleteCallback() {
                    @Override
                    public void markDeleteComplete(Object ctx) {
                        f.complete(null);
                    }

                    @Override
                    public void markDeleteFailed(ManagedLedgerException exception, Object ctx) {
                        f.completeExceptionally(exception);
                    }
                },
                null);
        return f;
    }

    protected static CompletableFuture<Void> deleteAsync(ManagedCursor c, List<Position> positions) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        c.asyncDelete(
                positions,
                new AsyncCallbacks.DeleteCallback() {
                    @Override
                    public void deleteComplete(Object ctx) {
                        f.complete(null);
                    }

                    @Override
                    public void deleteFailed(ManagedLedgerException exception, Object ctx) {
                        f.completeExceptionally(exception);
                    }
                },
                null);
        return f;
    }

    protected static CompletableFuture<Position> findNewestAsync(
            ManagedCursor c, ManagedCursor.FindPositionConstraint constraint, Predicate<Entry> condition) {
        CompletableFuture<Position> f = new CompletableFuture<>();
        c.asyncFindNewestMatching(
                constraint,
                condition,
                new AsyncCallbacks.FindEntryCallback() {
                    @Override
                    public void findEntryComplete(Position position, Object ctx) {
                        f.complete(position);
                    }

                    @Override
                    public void findEntryFailed(
                            ManagedLedgerException exception, java.util.Optional<Position> failed, Object ctx) {
                        f.completeExceptionally(exception);
                    }
                },
                null);
        return f;
    }

    protected static CompletableFuture<List<Entry>> replayAsync(
            ManagedCursor c,
            Set<Position> positions,
            boolean sorted,
            CompletableFuture<Set<? extends Position>> skipped) {
        CompletableFuture<List<Entry>> f = new CompletableFuture<>();
        skipped.complete(c.asyncReplayEntries(positions, readCallback(f), null, sorted));
        return f;
    }

    protected static String text(Entry e) {
        return new String(e.getData(), UTF_8);
    }

    protected static boolean startsWith(Entry e, String prefix) {
        return text(e).startsWith(prefix);
    }
}
