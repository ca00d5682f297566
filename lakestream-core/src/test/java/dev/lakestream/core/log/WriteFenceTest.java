package dev.lakestream.core.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lakestream.core.Lakestream;
import dev.lakestream.core.LakestreamConfig;
import dev.lakestream.core.StreamLog;
import dev.lakestream.core.catalog.StreamInfo;
import dev.lakestream.core.fence.PermanentWriteFences;
import dev.lakestream.core.gc.DeleteGate;
import dev.lakestream.core.gc.GcConfig;
import dev.lakestream.core.gc.WalGarbageCollector;
import dev.lakestream.core.metadata.GetOptions;
import dev.lakestream.core.metadata.MetadataStore;
import dev.lakestream.core.metadata.PutOptions;
import dev.lakestream.core.wal.WalWriterConfig;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Ursa's permanent write fence {@code /stream-write-fences/<sid>}: a stream whose fence record exists takes no more
 * appends, whoever placed it (here "Ursa" is a second metadata-store client writing the record as the reference notes
 * describe it: partition key the stream id, a value of its own). On the embedded pair and on S3Proxy + the real Oxia
 * server (where the second client is another Oxia session, so the fence reaches the writer as a real notification).
 */
public abstract class WriteFenceTest {

    protected abstract LakestreamLogTest.Stores openStores() throws Exception;

    /** A second metadata-store client on the same data, as another process (an Ursa one) would have. */
    protected abstract MetadataStore secondMetadataClient(LakestreamLogTest.Stores stores) throws Exception;

    private static final LakestreamConfig FAST = LakestreamConfig.DEFAULT.withWriter(
            new WalWriterConfig(256 << 10, Duration.ofMillis(5), 64L << 20, WalWriterConfig.WhenFull.WAIT));
    private static final AtomicLong ROOTS = new AtomicLong();
    /** How long a writer may go on committing after a fence is placed (the notification delay, bounded). */
    private static final Duration BOUND = Duration.ofSeconds(5);

    private LakestreamLogTest.Stores stores;
    private String root;
    private MetadataStore ursa;
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @BeforeEach
    void open() throws Exception {
        root = "/write-fence-test-" + ROOTS.incrementAndGet() + "-" + System.nanoTime();
        stores = openStores();
        ursa = secondMetadataClient(stores);
    }

    @AfterEach
    void close() throws Exception {
        Collections.reverse(toClose);
        for (AutoCloseable c : toClose) {
            c.close();
        }
        ursa.close();
        stores.close();
    }

    private Lakestream log(MetadataStore metadata) {
        Lakestream l = Lakestream.open(stores.objects(), metadata, FAST.withMetadataRoot(root));
        toClose.add(l);
        return l;
    }

    private static StreamLog create(Lakestream log, String name) {
        StreamInfo info = log.catalog().create("test", name, Map.of()).join();
        return log.stream(info);
    }

    /** Places the fence as an Ursa process would: created if absent, partition key the stream id. */
    private void ursaFences(long streamId) {
        ursa.put(
                        "/stream-write-fences/" + streamId,
                        "ursa-fence".getBytes(StandardCharsets.UTF_8),
                        PutOptions.ifAbsent().partitionKey(Long.toString(streamId)))
                .join();
    }

    private static String text(LogEntry e) {
        try {
            return e.payload().toString(StandardCharsets.UTF_8);
        } finally {
            e.payload().release();
        }
    }

    private static List<LogEntry> readAll(StreamLog s) {
        List<LogEntry> all = new ArrayList<>();
        long next = 0;
        while (true) {
            List<LogEntry> batch = s.read(next, 100, 1 << 20).join();
            if (batch.isEmpty()) {
                return all;
            }
            all.addAll(batch);
            next = batch.get(batch.size() - 1).endOffset();
        }
    }

    /** The fence refusal in a failure's cause chain, or null. */
    private static StreamWriteFencedException fenceRefusal(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof StreamWriteFencedException f) {
                return f;
            }
        }
        return null;
    }

    @Test
    void aStreamFencedBeforeItIsOpenedRefusesToBeAcquiredAndAppendedToNamingTheKey() {
        Lakestream before = log(stores.metadata());
        StreamLog s = create(before, "fenced-at-open");
        s.append(1, LakestreamLogTest.bytes("acknowledged")).join();
        String key = "/stream-write-fences/" + s.id();
        ursaFences(s.id());

        // Another process opens the stream afterwards: acquiring it for writing is refused, raising no epoch.
        Lakestream after = log(new NonClosingMetadataStore(stores.metadata()));
        StreamLog opened = after.stream(s.id());
        assertThatThrownBy(() -> opened.fence().join())
                .isInstanceOf(CompletionException.class)
                .cause()
                .isInstanceOf(StreamWriteFencedException.class)
                .hasMessageContaining(key)
                .hasMessageContaining("stream " + s.id());
        assertThat(stores.metadata()
                        .get(root + "/fences/" + s.id(), GetOptions.DEFAULT.partitionKey(Long.toString(s.id())))
                        .join())
                .as("no epoch raised")
                .isEmpty();
        // An append without acquiring (a plain writer) is refused too, before anything is committed.
        assertThatThrownBy(() ->
                        opened.append(1, LakestreamLogTest.bytes("refused")).join())
                .cause()
                .isInstanceOf(StreamWriteFencedException.class)
                .hasMessageContaining(key)
                .hasMessageContaining("stream " + s.id());
        assertThatThrownBy(() -> opened.append(1, LakestreamLogTest.bytes("refused again"))
                        .join())
                .cause()
                .isInstanceOf(StreamWriteFencedException.class);

        // What was acknowledged before stays readable, and nothing else is there.
        assertThat(readAll(opened)).extracting(WriteFenceTest::text).containsExactly("acknowledged");
        assertThat(opened.endOffset().join()).isEqualTo(1);
    }

    @Test
    void aFencePlacedWhileAWriterAppendsStopsItWithinABoundAndLosesNothingAcknowledged() throws Exception {
        Lakestream writer = log(stores.metadata());
        StreamLog s = create(writer, "fenced-while-writing");
        s.fence().join(); // acquired, as a managed ledger does: both fences are checked
        String key = "/stream-write-fences/" + s.id();

        List<String> sent = new ArrayList<>();
        List<CompletableFuture<AppendResult>> results = new ArrayList<>();
        int window = 8;
        long fencedAt = 0;
        long refusedAt = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        int afterRefusal = 0;
        for (int i = 0; afterRefusal < 20 && System.nanoTime() < deadline; i++) {
            if (i >= window) {
                results.get(i - window).handle((r, e) -> null).join();
            }
            if (i == 60) {
                // At least 52 appends answered by now; more are in flight while the fence is written.
                ursaFences(s.id());
                fencedAt = System.nanoTime();
            }
            if (refusedAt == 0 && results.stream().anyMatch(CompletableFuture::isCompletedExceptionally)) {
                refusedAt = System.nanoTime();
            }
            if (refusedAt != 0) {
                afterRefusal++;
            }
            String payload = "e" + i;
            sent.add(payload);
            results.add(s.append(1, LakestreamLogTest.bytes(payload)));
        }
        CompletableFuture.allOf(results.toArray(CompletableFuture[]::new))
                .handle((v, e) -> null)
                .join();
        assertThat(fencedAt).as("fence placed").isPositive();
        assertThat(refusedAt).as("an append was refused").isPositive();
        Duration stopped = Duration.ofNanos(refusedAt - fencedAt);
        System.out.println(getClass().getSimpleName() + ": writer refused " + stopped.toMillis()
                + " ms after the fence was placed");
        assertThat(stopped).isLessThan(BOUND);

        // In append order: acknowledged ones, then refused ones only; never an acknowledgement after a refusal.
        int firstRefused = -1;
        for (int i = 0; i < results.size(); i++) {
            if (results.get(i).isCompletedExceptionally()) {
                firstRefused = i;
                break;
            }
        }
        assertThat(firstRefused).isGreaterThan(50);
        List<AppendResult> acknowledged = new ArrayList<>();
        for (int i = 0; i < results.size(); i++) {
            CompletableFuture<AppendResult> r = results.get(i);
            if (i < firstRefused) {
                acknowledged.add(r.join());
            } else {
                assertThat(r)
                        .as("append %d, after the first refusal (%d)", i, firstRefused)
                        .isCompletedExceptionally();
                Throwable e = r.handle((x, t) -> t).join();
                assertThat(fenceRefusal(e))
                        .as("append %d fails for the fence: %s", i, e)
                        .isNotNull();
            }
        }
        StreamWriteFencedException first =
                fenceRefusal(results.get(firstRefused).handle((x, t) -> t).join());
        assertThat(first).hasMessageContaining(key).hasMessageContaining("stream " + s.id());
        assertThat(first.fenceKey()).isEqualTo(key);
        assertThat(first.streamId()).isEqualTo(s.id());

        // Everything acknowledged reads back entry for entry, at its offset; nothing else is in the stream.
        List<LogEntry> read = readAll(writer.stream(s.id()));
        assertThat(read).hasSize(acknowledged.size());
        for (int i = 0; i < read.size(); i++) {
            assertThat(read.get(i).offset()).isEqualTo(acknowledged.get(i).offset());
            assertThat(text(read.get(i))).isEqualTo(sent.get(i));
        }
        assertThat(s.endOffset().join()).isEqualTo(acknowledged.size());
        // And a later attempt by this writer is refused at once (the fence is permanent).
        assertThatThrownBy(() -> s.append(1, LakestreamLogTest.bytes("later")).join())
                .cause()
                .isInstanceOf(StreamWriteFencedException.class);
    }

    @Test
    void aStreamWithoutAFenceIsUnaffected() {
        Lakestream writer = log(stores.metadata());
        StreamLog fenced = create(writer, "fenced");
        StreamLog free = create(writer, "free");
        fenced.fence().join();
        free.fence().join();
        fenced.append(1, LakestreamLogTest.bytes("f0")).join();
        free.append(1, LakestreamLogTest.bytes("a0")).join();
        ursaFences(fenced.id());

        long deadline = System.nanoTime() + BOUND.toNanos();
        boolean refused = false;
        while (!refused && System.nanoTime() < deadline) {
            refused = fenced.append(1, LakestreamLogTest.bytes("f"))
                    .handle((r, e) -> e != null)
                    .join();
        }
        assertThat(refused).as("the fenced stream is refused").isTrue();
        for (int i = 1; i <= 20; i++) {
            assertThat(free.append(1, LakestreamLogTest.bytes("a" + i)).join().offset())
                    .isEqualTo(i);
        }
        assertThat(readAll(free)).extracting(WriteFenceTest::text).hasSize(21).startsWith("a0", "a1");
        Lakestream other = log(new NonClosingMetadataStore(stores.metadata()));
        assertThat(other.stream(free.id()).fence().join()).isEqualTo(2);
        assertThat(other.stream(free.id())
                        .append(1, LakestreamLogTest.bytes("a21"))
                        .join()
                        .offset())
                .isEqualTo(21);
    }

    @Test
    void deletingAStreamsDataPlacesItsWriteFenceSoOtherWritersStop() {
        Lakestream owner = log(stores.metadata());
        StreamLog s = create(owner, "deleted");
        s.fence().join();
        s.append(1, LakestreamLogTest.bytes("e0")).join();
        // A stale writer elsewhere that had acquired the stream and is still appending.
        Lakestream stale = log(new NonClosingMetadataStore(stores.metadata()));
        StreamLog staleStream = stale.stream(s.id());
        staleStream.append(1, LakestreamLogTest.bytes("e1")).join();

        owner.catalog().delete("test", "deleted").join();
        s.deleteData().join();

        String key = "/stream-write-fences/" + s.id();
        assertThat(PermanentWriteFences.key(s.id())).isEqualTo(key);
        // Where an Ursa process looks for it: the top-level key, partition key the stream id.
        assertThat(ursa.get(key, GetOptions.DEFAULT.partitionKey(Long.toString(s.id())))
                        .join())
                .isPresent();
        assertThatThrownBy(() -> s.append(1, LakestreamLogTest.bytes("own")).join())
                .cause()
                .isInstanceOf(StreamWriteFencedException.class)
                .hasMessageContaining(key);
        long deadline = System.nanoTime() + BOUND.toNanos();
        Throwable refused = null;
        while (refused == null && System.nanoTime() < deadline) {
            refused = staleStream
                    .append(1, LakestreamLogTest.bytes("late"))
                    .handle((r, e) -> e)
                    .join();
        }
        assertThat(fenceRefusal(refused))
                .as("the stale writer is refused: %s", refused)
                .isNotNull();
        // Deleting again (a retry) finds the fence in place and succeeds.
        s.deleteData().join();
    }

    @Test
    void garbageCollectionFinishingAHalfDoneDeletePlacesTheFence() {
        Lakestream owner = log(stores.metadata());
        StreamLog s = create(owner, "half-deleted");
        s.append(1, LakestreamLogTest.bytes("e0")).join();
        // The delete stopped after the catalog record: the data and the writers are still there, no fence.
        owner.catalog().delete("test", "half-deleted").join();
        String key = "/stream-write-fences/" + s.id();
        GetOptions byStream = GetOptions.DEFAULT.partitionKey(Long.toString(s.id()));
        assertThat(ursa.get(key, byStream).join()).isEmpty();

        new WalGarbageCollector(
                        stores.objects(),
                        new NonClosingMetadataStore(stores.metadata()),
                        root,
                        GcConfig.DEFAULT,
                        java.time.Clock.systemUTC())
                .runOnce(DeleteGate.UNLIMITED)
                .join();

        assertThat(ursa.get(key, byStream).join()).isPresent();
        assertThat(s.endOffset().join()).as("leftover index cleared").isZero();
        long deadline = System.nanoTime() + BOUND.toNanos();
        Throwable refused = null;
        while (refused == null && System.nanoTime() < deadline) {
            refused = s.append(1, LakestreamLogTest.bytes("late"))
                    .handle((r, e) -> e)
                    .join();
        }
        assertThat(fenceRefusal(refused))
                .as("the writer is refused: %s", refused)
                .isNotNull();
    }

    @Test
    void theFenceCostsNoMetadataReadPerAppend() {
        NonClosingMetadataStore counting = new NonClosingMetadataStore(stores.metadata());
        Lakestream writer = log(counting);
        StreamLog s = create(writer, "cost");
        long start = System.nanoTime();
        s.fence().join();
        int appends = 300;
        for (int i = 0; i < appends; i++) {
            s.append(1, LakestreamLogTest.bytes("e" + i)).join();
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        long reads = counting.getsUnder(PermanentWriteFences.PREFIX);
        System.out.printf(
                "%s: %d appends (one commit each) in %.2f s read the fence %d times%n",
                getClass().getSimpleName(), appends, seconds, reads);
        // One read on acquiring, then at most one per second of writing.
        assertThat(reads).isBetween(1L, 2 + (long) Math.ceil(seconds));
        assertThat(reads).isLessThan(appends / 10);
    }

    // ---- the stale owner (docs/layout.md §5, seals): a commit that lands after a newer owner sealed the stream is
    // void
    // ----

    /** The entries of {@code s} from its start: text, or {@code VOID} for a void entry. */
    private static List<String> texts(StreamLog s) {
        List<String> out = new ArrayList<>();
        for (LogEntry e : readAll(s)) {
            out.add(e.voided() ? "VOID@" + e.offset() : text(e) + "@" + e.offset());
        }
        return out;
    }

    @Test
    void aStaleOwnersCommitThatLandsAfterTheNewOwnersSealIsVoidForEveryReaderAndNotAcknowledged() throws Exception {
        MetadataStore oldClient = secondMetadataClient(stores);
        HeldCommitsMetadataStore held = new HeldCommitsMetadataStore(oldClient);
        Lakestream oldOwner = log(held);
        Lakestream newOwner = log(stores.metadata());
        Lakestream bystander = log(secondMetadataClient(stores));
        StreamLog old = create(oldOwner, "stale-after-seal");
        assertThat(old.fence().join()).isEqualTo(1);
        old.append(1, LakestreamLogTest.bytes("a")).join();

        // The old owner checked its epoch and froze before its commit went out.
        held.hold();
        CompletableFuture<AppendResult> late = old.append(1, LakestreamLogTest.bytes("late"));
        held.firstHeld().get(10, TimeUnit.SECONDS);

        StreamLog taken = newOwner.stream(old.id());
        long before = System.nanoTime();
        assertThat(taken.fence().join()).isEqualTo(2);
        // Not released by its last owner: the new owner waited the seal delay before sealing.
        assertThat(System.nanoTime() - before).isGreaterThanOrEqualTo(TimeUnit.SECONDS.toNanos(2));
        assertThat(taken.append(1, LakestreamLogTest.bytes("b")).join().offset())
                .isEqualTo(1);

        held.letGo();
        assertThatThrownBy(() -> late.get(30, TimeUnit.SECONDS))
                .cause()
                .isInstanceOf(StreamFencedException.class)
                .hasMessageContaining("void");
        assertThat(taken.append(1, LakestreamLogTest.bytes("c")).join().offset())
                .isEqualTo(3);

        // The stale commit has its offsets (2) but no reader delivers it: not the new owner, not another process.
        assertThat(texts(taken)).containsExactly("a@0", "b@1", "VOID@2", "c@3");
        assertThat(texts(bystander.stream(old.id()))).containsExactly("a@0", "b@1", "VOID@2", "c@3");
        assertThat(texts(log(secondMetadataClient(stores)).stream(old.id())))
                .containsExactly("a@0", "b@1", "VOID@2", "c@3");
    }

    @Test
    void aStaleOwnersCommitThatLandsBeforeTheSealIsKeptAndAcknowledged() throws Exception {
        MetadataStore oldClient = secondMetadataClient(stores);
        HeldCommitsMetadataStore held = new HeldCommitsMetadataStore(oldClient);
        Lakestream oldOwner = log(held);
        Lakestream newOwner = log(stores.metadata());
        StreamLog old = create(oldOwner, "stale-before-seal");
        assertThat(old.fence().join()).isEqualTo(1);
        old.append(1, LakestreamLogTest.bytes("a")).join();

        held.hold();
        CompletableFuture<AppendResult> late = old.append(1, LakestreamLogTest.bytes("late"));
        held.firstHeld().get(10, TimeUnit.SECONDS);
        // The takeover starts; the held commit lands while the new owner waits the seal delay.
        CompletableFuture<Long> fence = newOwner.stream(old.id()).fence();
        Thread.sleep(500);
        held.letGo();
        assertThat(late.get(30, TimeUnit.SECONDS).offset()).isEqualTo(1);
        assertThat(fence.get(30, TimeUnit.SECONDS)).isEqualTo(2);

        StreamLog taken = newOwner.stream(old.id());
        assertThat(taken.append(1, LakestreamLogTest.bytes("b")).join().offset())
                .isEqualTo(2);
        assertThat(texts(taken)).containsExactly("a@0", "late@1", "b@2");
        assertThat(texts(log(secondMetadataClient(stores)).stream(old.id()))).containsExactly("a@0", "late@1", "b@2");
    }

    @Test
    void aStreamItsOwnerReleasedIsTakenOverWithoutTheSealDelay() throws Exception {
        Lakestream oldOwner = log(secondMetadataClient(stores));
        Lakestream newOwner = log(stores.metadata());
        StreamLog old = create(oldOwner, "released");
        assertThat(old.fence().join()).isEqualTo(1);
        old.append(1, LakestreamLogTest.bytes("a")).join();
        old.releaseFence();

        String released = root + "/fences/" + old.id() + "/released";
        org.awaitility.Awaitility.await("the release of epoch 1 recorded at " + released)
                .atMost(Duration.ofSeconds(10))
                .until(() -> stores.metadata()
                        .get(released, GetOptions.DEFAULT.partitionKey(Long.toString(old.id())))
                        .join()
                        .isPresent());
        StreamLog taken = newOwner.stream(old.id());
        long before = System.nanoTime();
        assertThat(taken.fence().join()).isEqualTo(2);
        assertThat(System.nanoTime() - before).isLessThan(TimeUnit.SECONDS.toNanos(1));
        assertThat(texts(taken)).containsExactly("a@0");
    }
}
