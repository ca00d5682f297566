package dev.lakestream.core.gc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lakestream.core.Lakestream;
import dev.lakestream.core.LakestreamConfig;
import dev.lakestream.core.StreamLog;
import dev.lakestream.core.catalog.StreamInfo;
import dev.lakestream.core.index.IndexRecord;
import dev.lakestream.core.index.OffsetIndex;
import dev.lakestream.core.log.AppendResult;
import dev.lakestream.core.log.LogEntry;
import dev.lakestream.core.metadata.MetadataStore;
import dev.lakestream.core.objectstore.ObjectStore;
import dev.lakestream.core.wal.WalObjectKeys;
import dev.lakestream.core.wal.WalWriterConfig;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The GC service on real stores (the subclasses: the embedded pair, and S3Proxy + Oxia): streams sharing WAL objects,
 * one deleted and one trimmed, shrink the bucket to exactly what the survivor still references; the lease; the rate
 * limit.
 */
abstract class GcServiceTest {

    /** Opens a fresh pair of stores for one test. */
    protected abstract Stores openStores() throws Exception;

    record Stores(ObjectStore objects, MetadataStore metadata) implements AutoCloseable {
        @Override
        public void close() {
            metadata.close();
            objects.close();
        }
    }

    /**
     * Batches sealed by a 50 ms deadline only: appends issued together share one object, appends joined one by one do
     * not. (The adaptive policy's 1 ms linger split appends issued together on a loaded machine.)
     */
    static final LakestreamConfig FAST = LakestreamConfig.DEFAULT.withWriter(
            new WalWriterConfig(256 << 10, Duration.ofMillis(50), 64L << 20, WalWriterConfig.WhenFull.WAIT)
                    .withFlushPolicy(WalWriterConfig.FlushPolicy.DEADLINE));
    /**
     * The collector's clock is two hours ahead, so every object written by the test is past the orphan delay (1 h),
     * and with no safety margin everything named before the horizon's second goes.
     */
    static final Clock GC_CLOCK = Clock.offset(Clock.systemUTC(), Duration.ofHours(2));

    static final GcConfig GC = GcConfig.DEFAULT.withSafetyMargin(Duration.ZERO).withInterval(Duration.ofMillis(100));

    private static final AtomicLong ROOTS = new AtomicLong();
    protected Stores stores;
    protected String root;
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @BeforeEach
    void open() throws Exception {
        root = "/gc-test-" + ROOTS.incrementAndGet() + "-" + System.nanoTime();
        stores = openStores();
    }

    @AfterEach
    void close() throws Exception {
        Collections.reverse(toClose);
        for (AutoCloseable c : toClose) {
            c.close();
        }
        stores.close();
    }

    protected <T extends AutoCloseable> T closeLater(T c) {
        toClose.add(c);
        return c;
    }

    protected Lakestream log(ObjectStore objects, MetadataStore metadata) {
        return closeLater(Lakestream.open(objects, metadata, FAST.withMetadataRoot(root)));
    }

    protected GcService gc(Lakestream log, GcConfig config) {
        return closeLater(GcService.start(log, config, GC_CLOCK));
    }

    @Test
    void aDeletedAndATrimmedStreamShrinkTheBucketToWhatTheSurvivorStillReferences() {
        Lakestream log = log(stores.objects(), stores.metadata());
        StreamLog a = create(log, "a");
        StreamLog b = create(log, "b");
        // Old second: objects shared by a and b, and objects of a alone.
        for (int i = 0; i < 4; i++) {
            appendTogether(a, b, "old-" + i);
            append(a, "old-a-only-" + i);
        }
        awaitNextSecond(newestObject());
        // New second: b's survivors share their objects with a; a alone has more.
        long newFrom = b.endOffset().join();
        for (int i = 0; i < 3; i++) {
            appendTogether(a, b, "new-" + i);
            append(a, "new-a-only-" + i);
        }
        // Delete a; trim b in the middle of its first record of the new second (each record holds two entries).
        log.catalog().delete("test", "a").join();
        a.deleteData().join();
        long trimTo = newFrom + 1;
        b.trim(trimTo).join();
        List<IndexRecord> bRecords =
                new OffsetIndex(stores.metadata()).recordsFrom(b.id(), 0, 1000).join();
        List<String> stillReferenced =
                bRecords.stream().map(r -> r.value().location()).distinct().toList();
        assertThat(bRecords.get(0).startOffset()).isEqualTo(newFrom);

        Map<String, Long> before = objectSizes(stores.objects());
        assertThat(before.keySet()).containsAll(stillReferenced);
        assertThat(before).hasSizeGreaterThanOrEqualTo(stillReferenced.size() + 4 + 4 + 3);

        GcService gc = gc(log, GC);
        await("a GC run")
                .atMost(Duration.ofSeconds(30))
                .until(() -> gc.status().lastResult().isPresent());
        gc.close();

        Map<String, Long> after = objectSizes(stores.objects());
        report(before, after);
        assertThat(after.keySet()).containsExactlyInAnyOrderElementsOf(stillReferenced);
        long bytesBefore = before.values().stream().mapToLong(Long::longValue).sum();
        long bytesAfter = after.values().stream().mapToLong(Long::longValue).sum();
        assertThat(bytesAfter)
                .isEqualTo(stillReferenced.stream().mapToLong(before::get).sum())
                .isLessThan(bytesBefore);
        GcStatus status = gc.status();
        assertThat(status.deletedObjects()).isEqualTo(before.size() - after.size());
        assertThat(status.deletedBytes()).isEqualTo(bytesBefore - bytesAfter);
        GcResult result = status.lastResult().orElseThrow();
        assertThat(result.deletedBelowHorizon()).isEqualTo(8); // the old second: 4 shared + 4 of a alone
        assertThat(result.deletedOrphans()).isEqualTo(3); // the new second's objects of a alone
        assertThat(log.metrics().prometheusText())
                .contains("lakestream_gc_deleted_objects_total " + (before.size() - after.size()) + "\n")
                .contains("lakestream_gc_deleted_bytes_total " + (bytesBefore - bytesAfter) + "\n");

        // Every entry of b still readable reads back, from a fresh process (nothing cached).
        Lakestream fresh = log(stores.objects(), stores.metadata());
        List<String> expected = new ArrayList<>(List.of("b-new-0-second"));
        for (int i = 1; i < 3; i++) {
            expected.addAll(List.of("b-new-" + i + "-first", "b-new-" + i + "-second"));
        }
        assertThat(readAll(fresh.stream(b.id()), trimTo)).containsExactlyElementsOf(expected);
        // A reader positioned in the range of a deleted object is moved on to what may still be read.
        List<LogEntry> fromDeleted = fresh.stream(b.id()).read(1, 10, 1 << 20).join();
        assertThat(fromDeleted).isNotEmpty();
        assertThat(fromDeleted.get(0).offset()).isGreaterThanOrEqualTo(newFrom);
        fromDeleted.forEach(e -> e.payload().release());
    }

    @Test
    void objectsOfDeletedAndTrimmedStreamsGoEvenWhileAnUntrimmedStreamHoldsTheHorizonBack() {
        Lakestream log = log(stores.objects(), stores.metadata());
        StreamLog c = create(log, "c"); // never trimmed: its first object is the horizon from now on
        append(c, "c-0");
        StreamLog a = create(log, "a");
        StreamLog b = create(log, "b");
        for (int i = 0; i < 3; i++) {
            appendTogether(a, b, "x-" + i);
            append(a, "a-only-" + i);
        }
        appendTogether(a, b, "y");
        // A run before the deletes checks every object for being an orphan: none is, and none is checked again.
        WalGarbageCollector collector = new WalGarbageCollector(
                log.objectStore(), log.metadataStore(), log.config().metadataRoot(), GC, GC_CLOCK);
        assertThat(collector.runOnce(DeleteGate.UNLIMITED).join().deletedObjects())
                .isZero();

        log.catalog().delete("test", "a").join();
        a.deleteData().join();
        long keep = b.endOffset().join() - 2; // b's last record: the object of "y"
        b.trim(keep).join();
        List<String> stillReferenced = new ArrayList<>();
        for (StreamLog s : List.of(c, b)) {
            new OffsetIndex(stores.metadata())
                    .recordsFrom(s.id(), 0, 100)
                    .join()
                    .forEach(r -> stillReferenced.add(r.value().location()));
        }
        assertThat(stillReferenced).hasSize(2);
        Map<String, Long> before = objectSizes(stores.objects());
        assertThat(before).hasSize(1 + 3 + 3 + 1);

        GcResult result = collector.runOnce(DeleteGate.UNLIMITED).join();

        Map<String, Long> after = objectSizes(stores.objects());
        report(before, after);
        assertThat(after.keySet()).containsExactlyInAnyOrderElementsOf(stillReferenced);
        assertThat(result.deletedBelowHorizon() + result.deletedOrphans()).isZero();
        assertThat(result.deletedReleased()).isEqualTo(6);
        assertThat(result.deletedBytes())
                .isEqualTo(before.values().stream().mapToLong(Long::longValue).sum()
                        - after.values().stream().mapToLong(Long::longValue).sum());
        assertThat(stores.metadata()
                        .list(
                                dev.lakestream.core.trim.StreamTrimmer.releasedPrefix(root),
                                dev.lakestream.core.trim.StreamTrimmer.releasedPrefix(root) + "/",
                                java.util.Optional.empty())
                        .join())
                .as("the notes, once checked")
                .isEmpty();
        Lakestream fresh = log(stores.objects(), stores.metadata());
        assertThat(readAll(fresh.stream(b.id()), keep)).containsExactly("b-y-first", "b-y-second");
        assertThat(readAll(fresh.stream(c.id()), 0)).containsExactly("c-0");
    }

    @Test
    void oneServiceHoldsTheLeaseAndAnotherTakesOverWhenItCloses() {
        Lakestream log = log(stores.objects(), stores.metadata());
        StreamLog b = create(log, "b");
        append(b, "old");
        awaitNextSecond(newestObject());
        long keep = b.endOffset().join();
        append(b, "new");
        b.trim(keep).join();

        GcService first = gc(log, GC);
        await("the first service to take the lease")
                .atMost(Duration.ofSeconds(30))
                .until(() -> first.status().leaseHeld());
        GcService second = gc(log(stores.objects(), stores.metadata()), GC);
        await("three runs of the first service")
                .atMost(Duration.ofSeconds(30))
                .until(() -> first.status().runs() >= 3);
        assertThat(second.status().leaseHeld()).isFalse();
        assertThat(second.status().runs()).isZero();
        assertThat(objectSizes(stores.objects())).hasSize(1);

        first.close();
        assertThat(first.status().leaseHeld()).isFalse();
        await("the second service to take over")
                .atMost(Duration.ofSeconds(30))
                .until(() -> second.status().leaseHeld() && second.status().runs() >= 1);
        GcService disabled = gc(
                log,
                new GcConfig(
                        false,
                        GC.interval(),
                        GC.maxDeletesPerSecond(),
                        GC.safetyMargin(),
                        GC.orphanDelay(),
                        GC.commitWindow()));
        assertThat(disabled.status().enabled()).isFalse();
        assertThat(disabled.status().leaseHeld()).isFalse();
    }

    @Test
    void deletesArePacedToTheRateLimit() {
        DeleteRecordingObjectStore recording = new DeleteRecordingObjectStore(stores.objects());
        Lakestream log = log(recording, stores.metadata());
        StreamLog b = create(log, "b");
        int backlog = 12;
        for (int i = 0; i < backlog; i++) {
            append(b, "old-" + i);
        }
        awaitNextSecond(newestObject());
        long keep = b.endOffset().join();
        append(b, "new");
        b.trim(keep).join();
        assertThat(objectSizes(stores.objects())).hasSize(backlog + 1);

        int rate = 10;
        GcConfig limited = GC.withMaxDeletesPerSecond(rate);
        assertThat(limited.deleteBatchSize()).isEqualTo(1);
        long start = System.nanoTime();
        GcService gc = gc(log, limited);
        await("a GC run")
                .atMost(Duration.ofSeconds(30))
                .until(() -> gc.status().lastResult().isPresent());
        gc.close();

        List<DeleteRecordingObjectStore.Delete> deletes = recording.deletes();
        assertThat(deletes)
                .hasSize(backlog)
                .allSatisfy(d -> assertThat(d.objects()).isEqualTo(1));
        assertThat(objectSizes(stores.objects())).hasSize(1);
        // The limiter admits n objects no sooner than n / rate seconds after its first admission (which came after
        // `start`): an upper bound on the count at every delete, whatever the machine's speed.
        long deleted = 0;
        for (DeleteRecordingObjectStore.Delete d : deletes) {
            deleted += d.objects();
            double seconds = (d.nanoTime() - start) / 1e9;
            assertThat((double) deleted)
                    .as("objects deleted by %.3f s", seconds)
                    .isLessThanOrEqualTo(rate * seconds + limited.deleteBatchSize());
        }
    }

    // ------------------------------------------------------------------ helpers

    static StreamLog create(Lakestream log, String name) {
        StreamInfo info = log.catalog().create("test", name, Map.of()).join();
        return log.stream(info);
    }

    /** One entry, stored alone in its own object. */
    static AppendResult append(StreamLog s, String text) {
        return s.append(1, Unpooled.wrappedBuffer(text.getBytes(StandardCharsets.UTF_8)))
                .join();
    }

    /** One entry of a and two of b, in one object. */
    static void appendTogether(StreamLog a, StreamLog b, String text) {
        CompletableFuture.allOf(
                        a.append(1, Unpooled.wrappedBuffer(("a-" + text).getBytes(StandardCharsets.UTF_8))),
                        b.append(1, Unpooled.wrappedBuffer(("b-" + text + "-first").getBytes(StandardCharsets.UTF_8))),
                        b.append(1, Unpooled.wrappedBuffer(("b-" + text + "-second").getBytes(StandardCharsets.UTF_8))))
                .join();
    }

    String newestObject() {
        return objectSizes(stores.objects()).keySet().stream()
                .max(String::compareTo)
                .orElseThrow();
    }

    /**
     * Object names have one-second resolution: waits until objects written from now on are named later. Not
     * Awaitility: a bounded wait on the clock (under a second), with nothing to time out on.
     */
    static void awaitNextSecond(String objectKey) {
        long millis = WalObjectKeys.writtenAt(objectKey).toEpochMilli() + 999;
        while (System.currentTimeMillis() <= millis) {
            LockSupport.parkNanos(1_000_000);
        }
    }

    static Map<String, Long> objectSizes(ObjectStore store) {
        Map<String, Long> sizes = new TreeMap<>();
        String token = null;
        do {
            var page = store.list("", token, 1000).join();
            page.objects().forEach(o -> sizes.put(o.key(), o.size()));
            token = page.continuation();
        } while (token != null);
        return sizes;
    }

    static List<String> readAll(StreamLog s, long from) {
        List<String> all = new ArrayList<>();
        long next = from;
        while (true) {
            List<LogEntry> batch = s.read(next, 100, 1 << 20).join();
            if (batch.isEmpty()) {
                return all;
            }
            for (LogEntry e : batch) {
                all.add(e.payload().toString(StandardCharsets.UTF_8));
                e.payload().release();
            }
            next = batch.get(batch.size() - 1).endOffset();
        }
    }

    /** The bucket before and after, in the test's output (the figures the docs quote). */
    static void report(Map<String, Long> before, Map<String, Long> after) {
        org.slf4j.LoggerFactory.getLogger(GcServiceTest.class)
                .info(
                        "Bucket before GC: {} objects, {} bytes; after: {}" + " objects, {} bytes",
                        before.size(),
                        before.values().stream().mapToLong(Long::longValue).sum(),
                        after.size(),
                        after.values().stream().mapToLong(Long::longValue).sum());
    }
}
