package dev.lakestream.segments;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.lakestream.core.Lakestream;
import dev.lakestream.core.LakestreamConfig;
import dev.lakestream.core.StreamLog;
import dev.lakestream.core.catalog.StreamInfo;
import dev.lakestream.core.compaction.CompactionConfig;
import dev.lakestream.core.compaction.CompactionService;
import dev.lakestream.core.gc.DeleteGate;
import dev.lakestream.core.gc.GcConfig;
import dev.lakestream.core.gc.GcResult;
import dev.lakestream.core.gc.WalGarbageCollector;
import dev.lakestream.core.index.IndexKey;
import dev.lakestream.core.index.IndexRecord;
import dev.lakestream.core.index.OffsetIndex;
import dev.lakestream.core.log.AppendResult;
import dev.lakestream.core.log.EntryUnreadableException;
import dev.lakestream.core.log.LogEntry;
import dev.lakestream.core.metadata.MetadataStore;
import dev.lakestream.core.metadata.MetadataStoreUnavailableException;
import dev.lakestream.core.metadata.oxia.OxiaMetadataStore;
import dev.lakestream.core.metadata.oxia.OxiaMetadataStoreConfig;
import dev.lakestream.core.metrics.CompactionMetrics;
import dev.lakestream.core.objectstore.ObjectInfo;
import dev.lakestream.core.objectstore.ObjectStore;
import dev.lakestream.core.objectstore.s3.S3ObjectStore;
import dev.lakestream.core.objectstore.s3.S3ObjectStoreConfig;
import dev.lakestream.core.segment.SegmentFormats;
import dev.lakestream.core.segment.SegmentKeys;
import dev.lakestream.core.wal.WalWriterConfig;
import dev.lakestream.segments.Segments.Expected;
import dev.lakestream.testkit.FaultyHttpProxy;
import dev.lakestream.testkit.OxiaServerExtension;
import dev.lakestream.testkit.S3ProxyExtension;
import io.netty.buffer.Unpooled;
import java.net.URI;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.http.nio.netty.SdkEventLoopGroup;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3AsyncClient;

/**
 * Issue 21's fault rows for compaction, on S3Proxy (behind a {@link FaultyHttpProxy} for the segment PUTs) and a
 * real Oxia server, with the Parquet format: S3 refusing or slow during segment PUTs, a compactor killed after its
 * segment PUT and before its index switch and between the switch and the deletes, Oxia restarted during passes, a
 * paused compactor waking after another took the stream over, a corrupt and a missing segment. Each ends with a
 * fresh reader reading every entry once, in order, with the same bytes (CRC), from 0 to the end.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class CompactionFaultsTest {

    @RegisterExtension
    static final S3ProxyExtension S3 = new S3ProxyExtension();

    @RegisterExtension
    static final OxiaServerExtension OXIA = new OxiaServerExtension();

    private static final LakestreamConfig BASE = LakestreamConfig.DEFAULT.withWriter(
            new WalWriterConfig(64 << 10, Duration.ofMillis(2), 64L << 20, WalWriterConfig.WhenFull.WAIT));

    /** Everything old enough at once; small segments; passes back to back. */
    private static final CompactionConfig COMPACTION = CompactionConfig.DEFAULT
            .withDelay(Duration.ZERO)
            .withInterval(Duration.ofMillis(20))
            .withSegmentSize(256 << 10)
            .withFormat("parquet");

    /** Passes only when a test calls {@link CompactionService#runOnce()}. */
    private static final CompactionConfig BY_HAND = COMPACTION.withInterval(Duration.ofHours(1));

    private static final Duration WAIT = Duration.ofSeconds(40);

    private final List<AutoCloseable> toClose = new ArrayList<>();
    private final Random random = new Random(20261204L);
    private String bucket;
    private S3ObjectStore direct;
    private FaultyHttpProxy proxy;
    private ObjectStore objects;
    private MetadataStore metadata;
    /**
     * A metadata root of the test's own: GC keeps its state (what it checked up to) under it, and a test's GC run
     * must not see another's. Stream ids stay unique across roots.
     */
    private LakestreamConfig config;
    /** The test's stream (one a test). */
    private StreamInfo info;

    @BeforeEach
    void open() {
        config = BASE.withMetadataRoot("/compaction-faults-" + System.nanoTime());
        bucket = S3.createBucket();
        direct = s3(bucket, S3.endpoint());
        proxy = FaultyHttpProxy.start(S3.endpoint());
        toClose.add(proxy);
        objects = new SegmentPutsVia(direct, s3(bucket, proxy.endpoint()));
        // Short request timeout: a request in flight when Oxia restarts fails soon and is retried next pass.
        metadata = OxiaMetadataStore.open(
                OxiaMetadataStoreConfig.of(OXIA.serviceAddress()).withRequestTimeout(Duration.ofSeconds(5)));
        toClose.add(metadata);
    }

    @AfterEach
    void close() throws Exception {
        proxy.heal();
        for (AutoCloseable c : toClose.reversed()) {
            c.close();
        }
    }

    /** Quick retries (10..40 ms), so that a refused PUT fails its step in well under a second. */
    private S3ObjectStore s3(String bucket, URI endpoint) {
        S3ObjectStore store = new S3ObjectStore(S3ObjectStoreConfig.builder()
                .bucket(bucket)
                .prefix("wal")
                .endpoint(endpoint)
                .region(S3.region())
                .pathStyleAccess(true)
                .credentials(S3.accessKey(), S3.secretKey())
                .requestTimeout(Duration.ofSeconds(5))
                .maxRetries(2)
                .retryBaseDelay(Duration.ofMillis(10))
                .retryMaxDelay(Duration.ofMillis(40))
                .build());
        toClose.add(store);
        return store;
    }

    private Lakestream lakestream(ObjectStore on, MetadataStore md) {
        Lakestream l = Lakestream.open(on, md, config);
        toClose.add(l);
        return l;
    }

    private StreamLog newStream(Lakestream on) {
        info = on.catalog().create("faults", "c-" + System.nanoTime(), Map.of()).join();
        return on.stream(info);
    }

    private CompactionService compactor(Lakestream on, CompactionConfig compaction, long streamId) {
        CompactionService service = CompactionService.start(
                on, compaction, () -> List.of(streamId), SegmentFormats.installed(), Clock.systemUTC());
        toClose.add(service);
        return service;
    }

    // ------------------------------------------------------------------ the rows

    @Test
    void s3RefusingSegmentPutsFailsStepsAndSwitchesNothingUntilHealedWhileReadersSeeEveryOffsetOnce() throws Exception {
        Lakestream lakestream = lakestream(objects, metadata);
        StreamLog stream = newStream(lakestream);
        List<Expected> expected = Collections.synchronizedList(new ArrayList<>());
        Tailers tailers = new Tailers(stream);
        appendRounds(stream, expected, 10, 6);
        proxy.failAllRequests();
        compactor(lakestream, COMPACTION, stream.id());
        CompactionMetrics m = lakestream.metrics().compaction();
        awaiting("three failed steps while S3 refuses").until(() -> m.failures() >= 3);
        appendRounds(stream, expected, 10, 6);
        awaiting("failed steps go on while S3 refuses").until(() -> m.failures() >= 6);
        assertThat(proxy.requests()).as("segment PUTs tried").isPositive();
        assertThat(proxy.forwarded()).as("segment PUTs that reached S3").isZero();
        assertThat(m.segments()).isZero();
        assertThat(records(stream)).noneMatch(r -> r.value().isCompacted());
        assertThat(m.lastError()).contains("stream " + stream.id());
        assertThat(lakestream.metrics().prometheusText()).containsPattern("lakestream_compaction_failures_total [1-9]");

        proxy.heal();
        // Once a segment is written no refused step is still in flight (a stream's steps run one at a time).
        awaiting("a segment written after S3 healed").until(() -> m.segments() >= 1);
        long failuresAfterHeal = m.failures();
        awaiting("the stream compacted after S3 healed").until(() -> walRecords(stream) == 0);
        assertThat(m.segments()).isGreaterThan(1);
        assertThat(m.failures()).as("no failure after S3 healed").isEqualTo(failuresAfterHeal);
        assertThat(tailers.stop()).allSatisfy(seen -> assertThat(seen).containsExactlyElementsOf(expected));
        assertThat(freshRead()).containsExactlyElementsOf(expected);
    }

    @Test
    void slowS3DuringSegmentPutsOnlyDelaysCompactionAndReadersSeeEveryOffsetOnce() throws Exception {
        Lakestream lakestream = lakestream(objects, metadata);
        StreamLog stream = newStream(lakestream);
        List<Expected> expected = Collections.synchronizedList(new ArrayList<>());
        Tailers tailers = new Tailers(stream);
        proxy.delayAllRequests(Duration.ofMillis(400));
        compactor(lakestream, COMPACTION, stream.id());
        appendRounds(stream, expected, 20, 6);
        awaiting("the stream compacted through slow segment PUTs").until(() -> walRecords(stream) == 0);
        CompactionMetrics m = lakestream.metrics().compaction();
        assertThat(m.segments()).isGreaterThan(1);
        assertThat(proxy.forwarded()).as("segment PUTs, each delayed").isGreaterThanOrEqualTo((int) m.segments());
        assertThat(m.failures()).isZero();
        assertThat(tailers.stop()).allSatisfy(seen -> assertThat(seen).containsExactlyElementsOf(expected));
        assertThat(freshRead()).containsExactlyElementsOf(expected);
    }

    @Test
    void aCompactorKilledAfterItsSegmentPutLeavesAnOrphanThatGcDeletesAndTheNextPassCompacts() {
        Lakestream lakestream = lakestream(objects, metadata);
        StreamLog stream = newStream(lakestream);
        List<Expected> expected = new ArrayList<>();
        appendRounds(stream, expected, 20, 6);
        List<String> before = summary(records(stream));
        // The compactor's process, killed after its first segment PUT: its overwrite never reaches Oxia.
        FaultyMetadataStore faulty = new FaultyMetadataStore(metadata);
        faulty.failNextOverwrites(IndexKey.prefix(stream.id()), 1);
        try (Lakestream killed = Lakestream.open(objects, faulty, config);
                CompactionService service = compactor(killed, BY_HAND, stream.id())) {
            service.runOnce().join();
            assertThat(killed.metrics().compaction().failures()).isEqualTo(1);
            assertThat(killed.metrics().compaction().segments()).isZero();
        }
        assertThat(faulty.failed()).isEqualTo(1);
        assertThat(summary(records(stream))).as("the index, unchanged").isEqualTo(before);
        List<String> orphans = segmentObjects(stream.id());
        assertThat(orphans).as("the segment PUT before the switch").hasSize(1);
        assertThat(freshRead()).containsExactlyElementsOf(expected);
        // GC now: the orphan goes; the WAL objects the stopped switch noted as released stay (records name them).
        GcResult crashed = gcTwoHoursAhead();
        assertThat(crashed.deletedSegments()).isEqualTo(1);
        assertThat(crashed.deletedObjects()).as("the orphan alone").isEqualTo(1);
        assertThat(direct.head(orphans.get(0)).join()).isEmpty();
        assertThat(freshRead()).containsExactlyElementsOf(expected);

        // The next compactor (the process restarted, or another owner) compacts normally.
        compactor(lakestream, BY_HAND, stream.id()).runOnce().join();
        CompactionMetrics m = lakestream.metrics().compaction();
        assertThat(m.failures()).isZero();
        assertThat(m.segments()).isGreaterThan(1);
        assertThat(walRecords(stream))
                .as("WAL records left (the last one is compacted too once old)")
                .isZero();
        Set<String> referenced = compactedLocations(stream);
        assertThat(referenced).hasSize((int) m.segments()).doesNotContainAnyElementsOf(orphans);
        assertThat(freshRead()).containsExactlyElementsOf(expected);
        // GC again: the WAL objects the switches released go, every segment the index names stays.
        GcResult compacted = gcTwoHoursAhead();
        assertThat(compacted.deletedSegments()).isZero();
        assertThat(compacted.deletedObjects()).as("released WAL objects").isPositive();
        assertThat(new HashSet<>(segmentObjects(stream.id()))).isEqualTo(referenced);
        assertThat(freshRead()).containsExactlyElementsOf(expected);
    }

    @Test
    void aCompactorKilledBetweenItsOverwriteAndItsDeletesLeavesLeftoversTheNextPassDeletes() {
        Lakestream lakestream = lakestream(objects, metadata);
        StreamLog stream = newStream(lakestream);
        List<Expected> expected = new ArrayList<>();
        appendRounds(stream, expected, 20, 6);
        // The compactor's process, killed after its first overwrite: its deletes never reach Oxia.
        FaultyMetadataStore faulty = new FaultyMetadataStore(metadata);
        faulty.failDeletes(IndexKey.prefix(stream.id()));
        try (Lakestream killed = Lakestream.open(objects, faulty, config);
                CompactionService service = compactor(killed, BY_HAND, stream.id())) {
            service.runOnce().join();
            assertThat(killed.metrics().compaction().failures()).isEqualTo(1);
        }
        List<IndexRecord> after = records(stream);
        List<IndexRecord> compacted =
                after.stream().filter(r -> r.value().isCompacted()).toList();
        assertThat(compacted).as("the one switch's overwrite landed").hasSize(1);
        IndexRecord c = compacted.get(0);
        List<IndexRecord> leftovers = after.stream()
                .filter(r ->
                        !r.value().isCompacted() && r.startOffset() >= c.startOffset() && r.endOffset() < c.endOffset())
                .toList();
        assertThat(leftovers).as("WAL records left below the compacted record").isNotEmpty();
        assertThat(faulty.failed()).isGreaterThanOrEqualTo(leftovers.size());
        assertThat(freshRead()).containsExactlyElementsOf(expected);
        // GC meanwhile keeps the leftovers' WAL objects, though the switch noted them as released.
        gcTwoHoursAhead();
        assertThat(leftovers)
                .allSatisfy(r ->
                        assertThat(direct.head(r.value().location()).join()).isPresent());
        assertThat(freshRead()).containsExactlyElementsOf(expected);

        // The next compactor finishes the switch.
        compactor(lakestream, BY_HAND, stream.id()).runOnce().join();
        CompactionMetrics m = lakestream.metrics().compaction();
        assertThat(m.leftoversDeleted()).isEqualTo(leftovers.size());
        assertThat(m.failures()).isZero();
        List<IndexRecord> healed = records(stream);
        assertThat(summary(healed)).doesNotContainAnyElementsOf(summary(leftovers));
        assertThat(summary(healed)).containsAll(summary(List.of(c)));
        assertThat(walRecords(stream))
                .as("WAL records left (the last one is compacted too once old)")
                .isZero();
        assertThat(freshRead()).containsExactlyElementsOf(expected);
    }

    @Test
    void oxiaRestartedDuringCompactionPassesWhileAProducerAppendsLeavesTheStreamWhole() throws Exception {
        Lakestream lakestream = lakestream(direct, metadata);
        StreamLog stream = newStream(lakestream);
        CompactionService service = compactor(lakestream, COMPACTION.withSegmentSize(64 << 10), stream.id());
        CompactionMetrics m = lakestream.metrics().compaction();
        Producer producer = new Producer(stream);
        awaiting("segments before the restart").until(() -> m.segments() >= 2);
        OXIA.restart();
        long segmentsAtRestart = m.segments();
        int ackedAtRestart = producer.acked().size();
        awaiting("appends acknowledged after the restart")
                .untilAsserted(() -> assertThat(producer.acked().size())
                        .as(() -> "appends acknowledged after the restart (failed: "
                                + producer.failedCrcs().size() + ", first error: " + producer.firstError + ")")
                        .isGreaterThanOrEqualTo(ackedAtRestart + 20));
        producer.stop();
        awaiting("segments after the restart").until(() -> m.segments() > segmentsAtRestart);
        awaiting("the stream compacted after the restart").until(() -> walRecords(stream) == 0);
        // No failure that sticks: a pass now fails nothing.
        long failures = m.failures();
        service.runOnce().join();
        assertThat(m.failures()).isEqualTo(failures);

        List<Expected> read = freshRead();
        long at = 0;
        for (Expected e : read) {
            assertThat(e.offset()).as("each offset once, no gap").isEqualTo(at);
            at = e.end();
        }
        assertThat(at).isEqualTo(stream.endOffset().join());
        // Lost 0: every acknowledged append at its offset with its bytes; anything else is an append whose outcome
        // its producer did not learn (it failed), never a duplicate.
        Map<Long, Expected> byOffset = new java.util.HashMap<>();
        read.forEach(e -> byOffset.put(e.offset(), e));
        assertThat(producer.acked())
                .allSatisfy(e -> assertThat(byOffset.get(e.offset())).isEqualTo(e));
        Set<Long> ackedOffsets = new HashSet<>();
        producer.acked().forEach(e -> ackedOffsets.add(e.offset()));
        assertThat(read.stream().filter(e -> !ackedOffsets.contains(e.offset())))
                .allSatisfy(e -> assertThat(producer.failedCrcs()).contains(e.crc()));
        assertThat(read.stream().map(Expected::crc).distinct().count()).isEqualTo(read.size());
    }

    @Test
    void oxiaDownBetweenASegmentPutAndItsSwitchFailsTheStepAndTheNextPassCompacts() throws Exception {
        HeldSegmentPut held = new HeldSegmentPut(direct);
        Lakestream lakestream = lakestream(held, metadata);
        StreamLog stream = newStream(lakestream);
        List<Expected> expected = new ArrayList<>();
        appendRounds(stream, expected, 20, 6);
        List<String> before = summary(records(stream));
        CompactionService service = compactor(lakestream, BY_HAND, stream.id());
        CompactionMetrics m = lakestream.metrics().compaction();
        CompletableFuture<Void> pass = service.runOnce();
        String segment = held.arrived.get(20, TimeUnit.SECONDS);
        // The segment PUT lands while Oxia is down: the switch's writes to Oxia fail.
        OXIA.server().stop();
        try {
            held.release();
            pass.get(30, TimeUnit.SECONDS);
        } finally {
            OXIA.server().start();
        }
        awaiting("Oxia answering again").until(() -> records(stream) != null);
        assertThat(m.failures()).isEqualTo(1);
        assertThat(m.segments()).isZero();
        assertThat(summary(records(stream))).as("the index, unchanged").isEqualTo(before);
        assertThat(segmentObjects(stream.id())).containsExactly(segment);
        assertThat(freshRead()).containsExactlyElementsOf(expected);

        service.runOnce().join();
        assertThat(m.failures()).isEqualTo(1);
        assertThat(m.segments()).isGreaterThan(1);
        assertThat(walRecords(stream))
                .as("WAL records left (the last one is compacted too once old)")
                .isZero();
        assertThat(compactedLocations(stream)).doesNotContain(segment);
        assertThat(freshRead()).containsExactlyElementsOf(expected);
    }

    @Test
    void aPausedCompactorWakingAfterAnotherTookTheStreamOverChangesNothing() throws Exception {
        Lakestream owner = lakestream(direct, metadata);
        StreamLog stream = newStream(owner);
        List<Expected> expected = new ArrayList<>();
        appendRounds(stream, expected, 20, 6);
        // The stream's old owner: planned its first range, then paused before its segment PUT.
        HeldSegmentPut held = new HeldSegmentPut(direct);
        Lakestream zombie = lakestream(held, metadata);
        CompactionService zombieCompactor = compactor(zombie, BY_HAND, stream.id());
        CompletableFuture<Void> zombiePass = zombieCompactor.runOnce();
        String zombieSegment = held.arrived.get(20, TimeUnit.SECONDS);

        compactor(owner, BY_HAND, stream.id()).runOnce().join();
        assertThat(owner.metrics().compaction().segments()).isGreaterThan(1);
        assertThat(walRecords(stream))
                .as("WAL records left (the last one is compacted too once old)")
                .isZero();
        List<String> taken = summary(records(stream));

        held.release();
        zombiePass.get(20, TimeUnit.SECONDS);
        CompactionMetrics z = zombie.metrics().compaction();
        assertThat(z.failures()).as("the zombie's switch, refused").isEqualTo(1);
        assertThat(z.segments()).isZero();
        assertThat(summary(records(stream)))
                .as("the index as the new owner left it")
                .isEqualTo(taken);
        assertThat(segmentObjects(stream.id())).contains(zombieSegment);
        assertThat(compactedLocations(stream)).doesNotContain(zombieSegment);
        assertThat(freshRead()).containsExactlyElementsOf(expected);
    }

    @Test
    void aCompactorPausedBeforeItsDeletesWakingAfterAnotherFinishedItsSwitchChangesNothing() throws Exception {
        Lakestream owner = lakestream(direct, metadata);
        StreamLog stream = newStream(owner);
        List<Expected> expected = new ArrayList<>();
        appendRounds(stream, expected, 20, 6);
        // The old owner: its first overwrite landed, then it paused before deleting the records below.
        FaultyMetadataStore paused = new FaultyMetadataStore(metadata);
        paused.holdDeletes(IndexKey.prefix(stream.id()));
        Lakestream zombie = lakestream(direct, paused);
        CompletableFuture<Void> zombiePass =
                compactor(zombie, BY_HAND, stream.id()).runOnce();
        paused.deleteHeld.get(20, TimeUnit.SECONDS);
        assertThat(freshRead()).containsExactlyElementsOf(expected);

        // The new owner finds the leftovers, deletes them and compacts the rest.
        compactor(owner, BY_HAND, stream.id()).runOnce().join();
        CompactionMetrics o = owner.metrics().compaction();
        assertThat(o.leftoversDeleted()).isPositive();
        assertThat(o.segments()).isGreaterThan(1);
        assertThat(walRecords(stream))
                .as("WAL records left (the last one is compacted too once old)")
                .isZero();
        List<String> taken = summary(records(stream));

        paused.releaseDeletes();
        zombiePass.get(20, TimeUnit.SECONDS);
        assertThat(summary(records(stream)))
                .as("the index as the new owner left it")
                .isEqualTo(taken);
        assertThat(freshRead()).containsExactlyElementsOf(expected);
    }

    @Test
    void aCorruptOrMissingSegmentFailsReadsNamingTheObjectAndAnOffsetAndTheRestStillReads() {
        Lakestream lakestream = lakestream(direct, metadata);
        StreamLog stream = newStream(lakestream);
        List<Expected> expected = new ArrayList<>();
        appendRounds(stream, expected, 20, 6);
        compactor(lakestream, BY_HAND, stream.id()).runOnce().join();
        List<IndexRecord> compacted =
                records(stream).stream().filter(r -> r.value().isCompacted()).toList();
        assertThat(compacted).hasSizeGreaterThanOrEqualTo(3);
        IndexRecord corrupt = compacted.get(0);
        IndexRecord missing = compacted.get(2);
        byte[] garbage = new byte[(int) corrupt.value().fileSize()];
        random.nextBytes(garbage);
        direct.put(corrupt.value().location(), ByteBuffer.wrap(garbage)).join();
        direct.delete(List.of(missing.value().location())).join();

        try (Lakestream fresh = Lakestream.open(direct, metadata, config)) {
            StreamLog s = fresh.stream(info);
            for (IndexRecord bad : List.of(corrupt, missing)) {
                long mid = (bad.startOffset() + bad.endOffset()) / 2;
                for (long at : new long[] {bad.startOffset(), mid}) {
                    assertThatThrownBy(() -> s.read(at, 100, 1 << 20).join())
                            .hasCauseInstanceOf(EntryUnreadableException.class)
                            .cause()
                            .hasMessageContaining(bad.value().location())
                            .satisfies(e -> assertThat(offsetNamed(e.getMessage()))
                                    .isBetween(bad.startOffset(), bad.endOffset() - 1));
                }
            }
            assertThat(readRange(s, corrupt.endOffset(), missing.startOffset()))
                    .containsExactlyElementsOf(between(expected, corrupt.endOffset(), missing.startOffset()));
            assertThat(readRange(s, missing.endOffset(), s.endOffset().join()))
                    .containsExactlyElementsOf(between(expected, missing.endOffset(), Long.MAX_VALUE));
        }
    }

    // ------------------------------------------------------------------ helpers

    /** One GC run by a collector two hours ahead, past the default margins: everything is old enough to go. */
    /**
     * A segment of three 8 MiB parts (a multipart upload) while S3 misbehaves: a part refused past its retries fails the
     * step with nothing visible and no upload left pending (it is aborted), and the next pass, through refused and
     * dropped requests that are retried, writes it.
     */
    @Test
    void s3FaultsDuringAMultipartSegmentUploadFailTheStepWithNothingLeftOrAreRetriedToSuccess() throws Exception {
        Lakestream lakestream = lakestream(objects, metadata);
        StreamLog stream = newStream(lakestream);
        List<Expected> expected = Collections.synchronizedList(new ArrayList<>());
        appendRounds(stream, expected, 10, 100); // about 22 MB: one segment of three parts
        CompactionService service = compactor(lakestream, BY_HAND.withSegmentSize(64L << 20), stream.id());
        CompactionMetrics m = lakestream.metrics().compaction();

        // Part 2 refused three times (the store's attempts): the create and part 1 went through.
        Thread watcher = Thread.ofVirtual().start(() -> {
            while (proxy.forwarded() < 2) {
                Thread.onSpinWait();
            }
            proxy.failNextRequests(3);
        });
        service.runOnce().join();
        watcher.join();
        assertThat(m.failures()).isEqualTo(1);
        assertThat(m.lastError()).contains("upload part 2 of").contains("segments/" + stream.id() + "/");
        assertThat(m.segments()).isZero();
        assertThat(segmentObjects(stream.id())).as("nothing visible").isEmpty();
        assertThat(pendingUploads()).as("the upload aborted").isEmpty();
        assertThat(records(stream)).noneMatch(r -> r.value().isCompacted());

        // The create refused twice, then a part's connection dropped: retried, and the step goes through.
        proxy.resetCounters();
        proxy.failNextRequests(2);
        Thread dropper = Thread.ofVirtual().start(() -> {
            while (proxy.forwarded() < 2) {
                Thread.onSpinWait();
            }
            proxy.dropNextRequests(1);
        });
        service.runOnce().join();
        dropper.join();
        assertThat(m.failures()).as("no new failure").isEqualTo(1);
        assertThat(m.segments()).isEqualTo(1);
        assertThat(proxy.requests()).as("refused and dropped attempts").isGreaterThanOrEqualTo(proxy.forwarded() + 2);
        List<String> segments = segmentObjects(stream.id());
        assertThat(segments).hasSize(1);
        assertThat(direct.head(segments.get(0)).join().orElseThrow().size())
                .isGreaterThan(2L * S3ObjectStore.UPLOAD_PART_BYTES);
        assertThat(pendingUploads()).isEmpty();
        assertThat(walRecords(stream)).isZero();
        assertThat(freshRead()).containsExactlyElementsOf(expected);
    }

    /** The multipart uploads pending in the test's bucket, as S3Proxy lists them (ListMultipartUploads). */
    private List<String> pendingUploads() {
        SdkEventLoopGroup loops = SdkEventLoopGroup.builder().numberOfThreads(1).build();
        try (S3AsyncClient raw = S3AsyncClient.builder()
                .httpClientBuilder(NettyNioAsyncHttpClient.builder().eventLoopGroup(loops))
                .endpointOverride(S3.endpoint())
                .forcePathStyle(true)
                .region(Region.of(S3.region()))
                .credentialsProvider(
                        StaticCredentialsProvider.create(AwsBasicCredentials.create(S3.accessKey(), S3.secretKey())))
                .build()) {
            return raw.listMultipartUploads(r -> r.bucket(bucket)).join().uploads().stream()
                    .map(u -> u.key())
                    .toList();
        } finally {
            var unused = loops.eventLoopGroup().shutdownGracefully(0, 1, TimeUnit.SECONDS); // not awaited
        }
    }

    private GcResult gcTwoHoursAhead() {
        return new WalGarbageCollector(
                        direct,
                        metadata,
                        config.metadataRoot(),
                        GcConfig.DEFAULT,
                        Clock.offset(Clock.systemUTC(), Duration.ofHours(2)))
                .runOnce(DeleteGate.UNLIMITED)
                .join();
    }

    private static long offsetNamed(String message) {
        Matcher matcher = Pattern.compile("stream \\d+ offset (\\d+)").matcher(message);
        assertThat(matcher.find()).as("an offset named in: %s", message).isTrue();
        return Long.parseLong(matcher.group(1));
    }

    private static List<Expected> between(List<Expected> all, long from, long to) {
        return all.stream().filter(e -> e.offset() >= from && e.offset() < to).toList();
    }

    /** {@code rounds} groups of {@code perRound} entries of 1 byte to 60 KB, each group awaited. */
    private void appendRounds(StreamLog stream, List<Expected> expected, int rounds, int perRound) {
        for (int r = 0; r < rounds; r++) {
            List<CompletableFuture<?>> pending = new ArrayList<>();
            synchronized (expected) {
                long next = expected.isEmpty()
                        ? 0
                        : expected.get(expected.size() - 1).end();
                for (int e = 0; e < perRound; e++) {
                    int size = random.nextInt(4) == 0 ? 1 : 1 + random.nextInt(60_000);
                    int records = 1 + random.nextInt(3);
                    byte[] bytes = new byte[size];
                    random.nextBytes(bytes);
                    expected.add(new Expected(next, records, size, Segments.crc(bytes)));
                    next += records;
                    pending.add(stream.append(records, Unpooled.wrappedBuffer(bytes)));
                }
            }
            CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).join();
        }
    }

    private List<IndexRecord> records(StreamLog stream) {
        return new OffsetIndex(metadata).recordsFrom(stream.id(), 0, 100_000).join();
    }

    /** What identifies each record's state (IndexValue holds arrays, so records do not compare by value). */
    private static List<String> summary(List<IndexRecord> records) {
        return records.stream()
                .map(r -> r.key().format() + " " + r.value().location() + " v" + r.versionId()
                        + (r.value().isCompacted() ? " compacted" : ""))
                .toList();
    }

    private long walRecords(StreamLog stream) {
        return records(stream).stream().filter(r -> !r.value().isCompacted()).count();
    }

    private Set<String> compactedLocations(StreamLog stream) {
        Set<String> out = new HashSet<>();
        records(stream).stream()
                .filter(r -> r.value().isCompacted())
                .forEach(r -> out.add(r.value().location()));
        return out;
    }

    private List<String> segmentObjects(long streamId) {
        return direct.list(SegmentKeys.streamPrefix(streamId), null, 1000).join().objects().stream()
                .map(ObjectInfo::key)
                .toList();
    }

    /** The stream read whole by a reader of its own (no cache shared with the test's log), 1 MiB a read. */
    private List<Expected> freshRead() {
        try (Lakestream fresh = Lakestream.open(direct, metadata, config)) {
            StreamLog s = fresh.stream(info);
            return readRange(s, 0, s.endOffset().join());
        }
    }

    private static List<Expected> readRange(StreamLog stream, long from, long to) {
        List<Expected> out = new ArrayList<>();
        long at = from;
        while (at < to) {
            List<LogEntry> entries = stream.read(at, 1000, 1 << 20).join();
            assertThat(entries).as("read at %d below %d", at, to).isNotEmpty();
            for (LogEntry e : entries) {
                Expected row = Segments.row(e);
                if (row.offset() < to) {
                    out.add(row);
                }
                at = row.end();
            }
        }
        return out;
    }

    /**
     * Awaits {@code what}: polled every 20 ms for up to {@link #WAIT}; a condition is not yet true while Oxia does not
     * answer (its client reconnects by itself).
     */
    private static ConditionFactory awaiting(String what) {
        return await(what)
                .atMost(WAIT)
                .pollInterval(Duration.ofMillis(20))
                .ignoreExceptionsMatching(e ->
                        e instanceof CompletionException && e.getCause() instanceof MetadataStoreUnavailableException);
    }

    /** Readers tailing the stream from 0 with three budgets while it is written and compacted. */
    private static final class Tailers {
        private final AtomicBoolean writing = new AtomicBoolean(true);
        private final ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
        private final List<List<Expected>> seen = new ArrayList<>();
        private final List<Thread> threads = new ArrayList<>();

        Tailers(StreamLog stream) {
            for (long[] budget : new long[][] {{1, 1}, {10, 50_000}, {1000, 16 << 20}}) {
                List<Expected> mine = new ArrayList<>();
                seen.add(mine);
                threads.add(Thread.ofPlatform()
                        .name("tailer-" + budget[0])
                        .start(() -> tail(stream, (int) budget[0], budget[1], mine)));
            }
        }

        /** Lets the readers read to the end, and returns what each saw. */
        List<List<Expected>> stop() throws InterruptedException {
            writing.set(false);
            for (Thread t : threads) {
                t.join(WAIT.toMillis());
            }
            assertThat(errors).isEmpty();
            return seen;
        }

        private void tail(StreamLog stream, int maxEntries, long maxBytes, List<Expected> out) {
            try {
                long at = 0;
                while (true) {
                    boolean last = !writing.get();
                    long end = stream.endOffset().join();
                    while (at < end) {
                        List<LogEntry> entries =
                                stream.read(at, maxEntries, maxBytes).join();
                        if (entries.isEmpty()) {
                            throw new AssertionError("empty read at " + at + " below the end " + end);
                        }
                        for (LogEntry e : entries) {
                            Expected row = Segments.row(e);
                            if (row.offset() != at) {
                                throw new AssertionError("read at " + at + " returned offset " + row.offset());
                            }
                            out.add(row);
                            at = row.end();
                        }
                    }
                    if (last) {
                        return;
                    }
                    Thread.sleep(3);
                }
            } catch (Throwable t) {
                errors.add(t);
            }
        }
    }

    /**
     * Appends entries of 1 byte to 20 KB one after the other until stopped, noting the acknowledged ones (offset,
     * bytes) and the CRCs of the failed ones (an append that failed may still have been stored).
     */
    private final class Producer {
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final List<Expected> acked = Collections.synchronizedList(new ArrayList<>());
        private final Set<Long> failedCrcs = Collections.synchronizedSet(new HashSet<>());
        private final Thread thread;
        private volatile Throwable firstError;

        Producer(StreamLog stream) {
            Random r = new Random(random.nextLong());
            thread = Thread.ofPlatform().name("producer").start(() -> {
                while (running.get()) {
                    byte[] bytes = new byte[1 + r.nextInt(20_000)];
                    r.nextBytes(bytes);
                    int records = 1 + r.nextInt(3);
                    long crc = Segments.crc(bytes);
                    try {
                        AppendResult a = stream.append(records, Unpooled.wrappedBuffer(bytes))
                                .join();
                        acked.add(new Expected(a.offset(), records, bytes.length, crc));
                    } catch (RuntimeException e) {
                        if (firstError == null) {
                            firstError = e;
                        }
                        failedCrcs.add(crc);
                    }
                }
            });
        }

        void stop() throws InterruptedException {
            running.set(false);
            thread.join(WAIT.toMillis());
        }

        List<Expected> acked() {
            return List.copyOf(acked);
        }

        Set<Long> failedCrcs() {
            return Set.copyOf(failedCrcs);
        }
    }
}
