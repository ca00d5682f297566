package dev.lakestream.core.trim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lakestream.core.Lakestream;
import dev.lakestream.core.LakestreamConfig;
import dev.lakestream.core.StreamLog;
import dev.lakestream.core.catalog.StreamInfo;
import dev.lakestream.core.index.IndexKey;
import dev.lakestream.core.index.IndexRecord;
import dev.lakestream.core.index.OffsetIndex;
import dev.lakestream.core.metadata.GetOptions;
import dev.lakestream.core.metadata.MetadataStore;
import dev.lakestream.core.objectstore.ObjectStore;
import dev.lakestream.core.wal.WalWriterConfig;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Soft trim as Ursa clamps it, on real stores (the subclasses: the embedded pair, and S3Proxy + Oxia): Ursa's marker
 * {@code /mark-deleted-offsets/<sid>} never goes past the start of the stream's last index record, so a reader or
 * cleaner following Ursa's rules on our metadata never loses the last record, while our own start offset is exactly
 * the point trimmed, across restarts.
 */
abstract class SoftTrimClampTest {

    /** Opens a fresh pair of stores for one test. */
    protected abstract Stores openStores() throws Exception;

    record Stores(ObjectStore objects, MetadataStore metadata) implements AutoCloseable {
        @Override
        public void close() {
            metadata.close();
            objects.close();
        }
    }

    /** A 5 ms batching deadline: appends joined one by one get one index record each. */
    private static final LakestreamConfig FAST = LakestreamConfig.DEFAULT.withWriter(
            new WalWriterConfig(256 << 10, Duration.ofMillis(5), 64L << 20, WalWriterConfig.WhenFull.WAIT));

    private static final AtomicLong ROOTS = new AtomicLong();
    private Stores stores;
    private String root;
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @BeforeEach
    void open() throws Exception {
        // Tests of one class share one metadata server: each gets its own root (the marker key has none, but stream
        // ids are never handed out twice by one server).
        root = "/soft-trim-test-" + ROOTS.incrementAndGet() + "-" + System.nanoTime();
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

    /** A Lakestream on the test's stores: a second one is another process (or the same one restarted). */
    private Lakestream log() {
        Lakestream l = Lakestream.open(stores.objects(), stores.metadata(), FAST.withMetadataRoot(root));
        toClose.add(l);
        return l;
    }

    private static StreamLog appendEach(Lakestream log, String name, int n) {
        StreamInfo info = log.catalog().create("test", name, Map.of()).join();
        StreamLog s = log.stream(info);
        appendEach(s, 0, n);
        return s;
    }

    private static void appendEach(StreamLog s, int from, int n) {
        for (int i = from; i < from + n; i++) {
            s.append(1, Unpooled.wrappedBuffer(("e" + i).getBytes(StandardCharsets.UTF_8)))
                    .join();
        }
    }

    // ---- what an Ursa process sees: written from Ursa's rules (the reference notes, section 7.6), raw keys only

    /** {@code /mark-deleted-offsets/<sid>}, read as Ursa reads it; empty when absent. */
    private OptionalLong ursaMarker(long sid) {
        return stores.metadata()
                .get("/mark-deleted-offsets/" + sid, GetOptions.DEFAULT.partitionKey(Long.toString(sid)))
                .join()
                .map(r -> OptionalLong.of(Long.parseLong(new String(r.value(), StandardCharsets.UTF_8))))
                .orElse(OptionalLong.empty());
    }

    /** Ursa's start offset: {@code max(marker, start of the first index record)}. */
    private long ursaStart(long sid) {
        long marker = ursaMarker(sid).orElse(0);
        return Math.max(
                marker, index().first(sid).join().map(IndexRecord::startOffset).orElse(marker));
    }

    /** Ursa's hard trim / cleaner: deletes the index records wholly below the marker (no exception for the last). */
    private void ursaCleaner(long sid) {
        long marker = ursaMarker(sid).orElse(0);
        stores.metadata()
                .deleteRange(
                        IndexKey.lowest(sid),
                        IndexKey.coveringSearchKey(sid, marker),
                        Optional.of(IndexKey.partitionKey(sid)))
                .join();
    }

    private OffsetIndex index() {
        return new OffsetIndex(stores.metadata());
    }

    private IndexRecord lastRecord(long sid) {
        return index().last(sid).join().orElseThrow();
    }

    /** Our trim point record, empty when absent. */
    private Optional<String> trimPoint(long sid) {
        return stores.metadata()
                .get(StreamTrimmer.trimPointKey(root, sid), GetOptions.DEFAULT.partitionKey(Long.toString(sid)))
                .join()
                .map(r -> new String(r.value(), StandardCharsets.UTF_8));
    }

    // ---- tests

    @Test
    void trimmingEverythingStopsTheMarkerAtTheLastRecordsStartAndKeepsOurStartExact() {
        Lakestream log = log();
        StreamLog s = appendEach(log, "all", 10);
        long lastStart = lastRecord(s.id()).startOffset();
        assertThat(lastStart).as("one record per append").isEqualTo(9);

        s.trim(10).join(); // everything: what a managed ledger does when all is consumed and retention is 0

        assertThat(ursaMarker(s.id())).as("Ursa's marker").hasValue(lastStart);
        assertThat(trimPoint(s.id())).as("our trim point").hasValue("10");
        assertThat(s.startOffset().join()).isEqualTo(10);
        assertThat(s.read(s.startOffset().join(), 10, 1 << 20).join()).isEmpty();
        assertThat(index().recordsFrom(s.id(), 0, 100).join())
                .as("hard trim kept the last record")
                .extracting(IndexRecord::startOffset)
                .containsExactly(lastStart);

        // An Ursa reader starts at or before the last record, and finds it.
        long ursaStart = ursaStart(s.id());
        assertThat(ursaStart).isLessThanOrEqualTo(lastStart);
        assertThat(index().recordsFrom(s.id(), ursaStart, 100).join())
                .extracting(IndexRecord::endOffset)
                .contains(10L);

        // Another process (or a restart) sees the same start.
        assertThat(log().stream(s.id()).startOffset().join()).isEqualTo(10);
        assertThat(s.append(1, Unpooled.wrappedBuffer(new byte[] {1})).join().offset())
                .as("offsets do not restart")
                .isEqualTo(10);
    }

    @Test
    void theMarkerFollowsTheLastRecordForwardOnLaterTrimsAndNeverMovesBack() {
        StreamLog s = appendEach(log(), "forward", 10);
        s.trim(10).join();
        assertThat(ursaMarker(s.id())).hasValue(9);

        appendEach(s, 10, 5); // records [10, 11) .. [14, 15): the last record now starts at 14
        assertThat(ursaMarker(s.id())).as("appends do not write the marker").hasValue(9);
        assertThat(s.startOffset().join()).isEqualTo(10);

        // Retention trims to the same point again: the marker catches up, as far as the last record allows.
        assertThat(s.softTrim(10).join()).isEqualTo(10);
        assertThat(ursaMarker(s.id())).hasValue(10);
        assertThat(s.softTrim(4).join()).as("never backwards").isEqualTo(10);
        assertThat(ursaMarker(s.id())).hasValue(10);

        s.trim(12).join(); // below the last record's start: the marker is the trim point
        assertThat(ursaMarker(s.id())).hasValue(12);
        assertThat(trimPoint(s.id()))
                .as("not rewritten when the marker holds the point")
                .hasValue("10");
        assertThat(s.startOffset().join()).isEqualTo(12);

        s.trim(15).join(); // everything again
        assertThat(ursaMarker(s.id())).hasValue(14);
        assertThat(trimPoint(s.id())).hasValue("15");
        assertThat(s.startOffset().join()).isEqualTo(15);

        assertThat(s.softTrim(13).join()).as("never backwards").isEqualTo(15);
        assertThat(ursaMarker(s.id())).hasValue(14);
        assertThat(trimPoint(s.id())).hasValue("15");
        assertThat(ursaStart(s.id())).isEqualTo(14);
        assertThat(log().stream(s.id()).startOffset().join())
                .as("after a restart")
                .isEqualTo(15);
    }

    @Test
    void aCleanerFollowingUrsasRuleKeepsTheLastRecordAndSoTheStreamsOffsets() {
        StreamLog s = appendEach(log(), "cleaner", 10);
        s.trim(10).join();

        ursaCleaner(s.id()); // deletes what lies wholly below the marker

        assertThat(index().last(s.id()).join())
                .as("the last record survives Ursa's cleaner")
                .map(IndexRecord::endOffset)
                .hasValue(10L);
        assertThat(s.append(1, Unpooled.wrappedBuffer(new byte[] {1})).join().offset())
                .as("the next offset still comes from the last record")
                .isEqualTo(10);
        assertThat(s.startOffset().join()).isEqualTo(10);
    }

    @Test
    void deletingTheStreamsDataRemovesTheMarkerAndTheTrimPoint() {
        StreamLog s = appendEach(log(), "deleted", 3);
        s.trim(3).join();
        assertThat(trimPoint(s.id())).hasValue("3");

        s.deleteData().join();

        assertThat(ursaMarker(s.id())).isEmpty();
        assertThat(trimPoint(s.id())).isEmpty();
    }
}
