package dev.lakestream.pulsar.compaction;

import static dev.lakestream.pulsar.compaction.Messages.batch;
import static dev.lakestream.pulsar.compaction.Messages.decode;
import static dev.lakestream.pulsar.compaction.Messages.marker;
import static dev.lakestream.pulsar.compaction.Messages.message;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyMap;
import static org.mockito.Mockito.doAnswer;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import dev.lakestream.core.Lakestream;
import dev.lakestream.core.LakestreamConfig;
import dev.lakestream.core.catalog.StreamInfo;
import dev.lakestream.core.metadata.MetadataStore;
import dev.lakestream.core.objectstore.ObjectStore;
import dev.lakestream.core.wal.WalWriterConfig;
import dev.lakestream.pulsar.LakestreamManagedLedgerFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.bookkeeper.mledger.AsyncCallbacks;
import org.apache.bookkeeper.mledger.ManagedCursor;
import org.apache.bookkeeper.mledger.ManagedLedger;
import org.apache.bookkeeper.mledger.ManagedLedgerConfig;
import org.apache.bookkeeper.mledger.ManagedLedgerException;
import org.apache.bookkeeper.mledger.ManagedLedgerFactoryConfig;
import org.apache.bookkeeper.mledger.Position;
import org.apache.bookkeeper.mledger.PositionFactory;
import org.apache.pulsar.common.api.proto.CommandSubscribe.InitialPosition;
import org.apache.pulsar.compaction.CompactionRecord;
import org.apache.pulsar.compaction.CompactorMXBeanImpl;
import org.apache.pulsar.compaction.TopicCompactionService.MessagePosition;
import org.apache.pulsar.metadata.api.MetadataStoreConfig;
import org.apache.pulsar.metadata.api.extended.MetadataStoreExtended;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The compaction algorithm and its storage, on a real managed ledger over a real {@link Lakestream}, without a
 * broker: {@code Embedded…} and {@code Remote…} subclasses choose the stores.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
abstract class CompactionServiceTest {

    private static final LakestreamConfig LOG_CONFIG = new LakestreamConfig(
            LakestreamConfig.DEFAULT.metadataRoot(),
            new WalWriterConfig(1 << 20, Duration.ofMillis(3), 64L << 20, WalWriterConfig.WhenFull.WAIT),
            LakestreamConfig.DEFAULT.reader(),
            LakestreamConfig.DEFAULT.tailPollInterval(),
            Duration.ofMillis(50));

    record Stores(ObjectStore objects, MetadataStore metadata) {}

    protected abstract Stores openStores(Path scratch) throws Exception;

    @TempDir
    Path tempDir;

    private Stores stores;
    private MetadataStoreExtended brokerStore;
    private Lakestream log;
    private LakestreamManagedLedgerFactory factory;
    private ManagedLedger ml;
    private String name;
    private final ExecutorService executor = Executors.newSingleThreadExecutor();
    /** The broker's compaction statistics, as the factory shares them between the topics' services. */
    private final CompactorMXBeanImpl statistics = new CompactorMXBeanImpl();
    /** Set by a test to break the {@code __compaction} cursor the runs commit on. */
    private ManagedCursor brokenCursor;

    @BeforeEach
    void open() throws Exception {
        stores = openStores(tempDir);
        brokerStore = MetadataStoreExtended.create(
                "memory:compaction-" + UUID.randomUUID(),
                MetadataStoreConfig.builder().build());
        name = "compaction/ns/persistent/t-" + UUID.randomUUID().toString().substring(0, 8);
        openLedger();
    }

    private void openLedger() throws Exception {
        log = Lakestream.open(stores.objects(), stores.metadata(), LOG_CONFIG);
        factory = new LakestreamManagedLedgerFactory(log, brokerStore, new ManagedLedgerFactoryConfig());
        // Small ledgers, no retention: consumed ledgers are trimmed as soon as retention runs.
        ml = factory.open(
                name,
                new ManagedLedgerConfig()
                        .setMaxEntriesPerLedger(4)
                        .setRetentionTime(0, TimeUnit.MILLISECONDS)
                        .setRetentionSizeInMB(0));
    }

    /** What a broker restart does to the topic: everything in memory is gone, the stores stay. */
    private void reopen() throws Exception {
        factory.shutdownAsync().get(20, TimeUnit.SECONDS);
        log.close();
        openLedger();
    }

    @AfterEach
    void close() throws Exception {
        executor.shutdownNow();
        try {
            factory.shutdownAsync().get(20, TimeUnit.SECONDS);
        } finally {
            log.close();
            brokerStore.close();
            stores.metadata().close();
            stores.objects().close();
        }
    }

    private LakestreamTopicCompactionService service(boolean retainNullKey) {
        return new LakestreamTopicCompactionService(
                "persistent://" + name,
                new TestTopic(),
                new CompactedStreams(log, ml.getName()),
                retainNullKey,
                executor,
                statistics);
    }

    /** This topic's compaction statistics, as topic stats and the broker's metrics report them. */
    private CompactionRecord statistics() {
        return statistics.getCompactionRecordForTopic("persistent://" + name).orElseThrow();
    }

    private final class TestTopic implements CompactionTopic {
        @Override
        public CompletableFuture<ManagedLedger> ledger() {
            return CompletableFuture.completedFuture(ml);
        }

        @Override
        public CompletableFuture<Optional<ManagedCursor>> existingCursor() {
            for (ManagedCursor c : ml.getCursors()) {
                if (CURSOR.equals(c.getName())) {
                    return CompletableFuture.completedFuture(Optional.of(c));
                }
            }
            return CompletableFuture.completedFuture(Optional.empty());
        }

        @Override
        public CompletableFuture<ManagedCursor> cursor() {
            if (brokenCursor != null) {
                return CompletableFuture.completedFuture(brokenCursor);
            }
            try {
                return CompletableFuture.completedFuture(ml.openCursor(CURSOR, InitialPosition.Earliest));
            } catch (Exception e) {
                return CompletableFuture.failedFuture(e);
            }
        }
    }

    private Position add(byte[] message) throws Exception {
        return ml.addEntry(message);
    }

    private static <T> T get(CompletableFuture<T> f) throws Exception {
        return f.get(30, TimeUnit.SECONDS);
    }

    private static List<String> all(LakestreamTopicCompactionService s) throws Exception {
        return decode(get(s.readCompactedEntries(PositionFactory.EARLIEST, 1000)));
    }

    private static List<Position> positions(LakestreamTopicCompactionService s, Position from, int n) throws Exception {
        List<Position> out = new ArrayList<>();
        var entries = get(s.readCompactedEntries(from, n));
        entries.forEach(e -> {
            out.add(e.getPosition());
            e.release();
        });
        return out;
    }

    private List<Long> streamsOfTopic() throws Exception {
        return get(log.catalog().list(CompactedStreams.NAMESPACE_PREFIX + ml.getName())).stream()
                .map(StreamInfo::id)
                .toList();
    }

    // ---------------------------------------------------------------------------------------------------- tests

    @Test
    void nothingIsCompactedBeforeTheFirstRun() throws Exception {
        add(message("a", "1", 100));
        LakestreamTopicCompactionService s = service(false);
        assertThat(get(s.getLastCompactedPosition())).isNull();
        assertThat(get(s.readCompactedEntries(PositionFactory.EARLIEST, 10))).isEmpty();
        assertThat(get(s.getLastMessagePosition())).isEqualTo(MessagePosition.EARLIEST);
        assertThat(get(s.findEntryByPublishTime(0))).isNull();
    }

    @Test
    void keepsTheLatestValuePerKeyAndDropsTombstonesKeylessMessagesAndMarkers() throws Exception {
        add(message("a", "1", 100));
        add(message("b", "1", 101));
        Position a2 = add(message("a", "2", 102));
        add(message("c", "1", 103));
        add(message(null, "no-key", 104));
        add(message("b", null, 105));
        add(marker(106));
        Position c2 = add(message("c", "2", 107));
        add(message("d", "1", 108));
        Position last = add(message("d", null, 109));

        LakestreamTopicCompactionService s = service(false);
        get(s.compact());

        assertThat(all(s)).containsExactly("a=2", "c=2");
        // Entries keep the positions the topic gave them.
        assertThat(positions(s, PositionFactory.EARLIEST, 10)).containsExactly(a2, c2);
        assertThat(get(s.getLastCompactedPosition())).isEqualTo(last);
        assertThat(get(s.getLastMessagePosition()))
                .isEqualTo(new MessagePosition(c2.getLedgerId(), c2.getEntryId(), -1, 107));
        // Removed: a=1 and c=1 (replaced), the keyless message, the tombstones of b and d; the marker is not counted.
        CompactionRecord r = statistics();
        assertThat(r.getLastCompactionRemovedEventCount()).isEqualTo(5);
        assertThat(r.getCompactionRemovedEventCount()).isEqualTo(5);
        assertThat(r.getCompactionSucceedCount()).isEqualTo(1);
        assertThat(r.getCompactionFailedCount()).isZero();
        assertThat(r.getLastCompactionSucceedTimestamp()).isPositive();
        assertThat(r.getLastCompactionFailedTimestamp()).isZero();
        assertThat(r.getCompactionReadBytes())
                .as("the bytes of the 10 entries phase one read")
                .isPositive();
        assertThat(r.getCompactionWriteBytes())
                .as("the bytes of the 2 entries written")
                .isPositive()
                .isLessThan(r.getCompactionReadBytes());
        assertThat(r.getCompactionLatencyStats().getCount())
                .as("one latency per entry written")
                .isEqualTo(2);
    }

    @Test
    void keylessMessagesAreKeptWhenRetainNullKeyIsSet() throws Exception {
        add(message(null, "x", 100));
        add(message("a", "1", 101));
        add(message(null, "y", 102));
        add(message("a", "2", 103));
        LakestreamTopicCompactionService s = service(true);
        get(s.compact());
        assertThat(all(s)).containsExactly("=x", "=y", "a=2");
        // Only a=1, replaced: kept keyless messages are not removed events.
        assertThat(statistics().getLastCompactionRemovedEventCount()).isEqualTo(1);
    }

    @Test
    void batchesKeepOnlyTheirLatestMessages() throws Exception {
        Position b1 = add(batch(100, "a", "1", "b", "1", "c", "1"));
        Position b2 = add(message("b", "2", 101));
        Position b3 = add(batch(102, "d", "1", "a", null));
        add(batch(103, "e", "1", "e", "2"));
        Position b5 = add(batch(104, "f", null, "g", null));

        LakestreamTopicCompactionService s = service(false);
        get(s.compact());

        // b1 keeps c (a was deleted by b3, b overwritten by b2); the batch of e keeps its second message; the last
        // batch holds only tombstones and is dropped.
        assertThat(all(s)).containsExactly("c=1", "b=2", "d=1", "e=2");
        List<Position> ps = positions(s, PositionFactory.EARLIEST, 10);
        assertThat(ps).hasSize(4).startsWith(b1, b2, b3);
        MessagePosition lastMessage = get(s.getLastMessagePosition());
        assertThat(lastMessage.batchIndex()).isEqualTo(1);
        assertThat(lastMessage.entryId()).isEqualTo(ps.get(3).getEntryId());
        assertThat(get(s.getLastCompactedPosition())).isEqualTo(b5);
        // Removed, message by message: b=1, the tombstone of a, e=1, the tombstones of f and g.
        assertThat(statistics().getLastCompactionRemovedEventCount()).isEqualTo(5);
    }

    @Test
    void repeatedCompactionStartsFromThePreviousViewAndDeletesIt() throws Exception {
        add(message("a", "1", 100));
        add(message("b", "1", 101));
        LakestreamTopicCompactionService s = service(false);
        get(s.compact());
        long first = get(s.compactedStreamId()).orElseThrow();
        assertThat(all(s)).containsExactly("a=1", "b=1");

        add(message("a", "2", 102));
        add(message("c", "1", 103));
        Position last = add(message("b", null, 104));
        get(s.compact());
        long second = get(s.compactedStreamId()).orElseThrow();

        assertThat(second).isNotEqualTo(first);
        assertThat(all(s)).containsExactly("a=2", "c=1");
        assertThat(get(s.getLastCompactedPosition())).isEqualTo(last);
        // The previous stream is deleted once the new one is committed.
        await("the topic to have only the second compacted stream")
                .atMost(Duration.ofSeconds(30))
                .until(() -> streamsOfTopic().equals(List.of(second)));

        // The second run's removed events: a=1 (in the view) replaced, and b's tombstone.
        assertThat(statistics().getLastCompactionRemovedEventCount()).isEqualTo(2);
        assertThat(statistics().getCompactionRemovedEventCount()).isEqualTo(2);

        // Nothing new: the run is skipped and the view stays; it counts as a compaction that succeeded.
        get(s.compact());
        assertThat(get(s.compactedStreamId())).contains(second);
        assertThat(statistics().getCompactionSucceedCount()).isEqualTo(3);
        assertThat(statistics().getLastCompactionRemovedEventCount()).isZero();
    }

    @Test
    void aRestartFindsTheCompactedView() throws Exception {
        add(message("a", "1", 100));
        add(message("a", "2", 101));
        Position last = add(message("b", "1", 102));
        LakestreamTopicCompactionService s = service(false);
        get(s.compact());
        long id = get(s.compactedStreamId()).orElseThrow();

        reopen();

        LakestreamTopicCompactionService after = service(false);
        assertThat(get(after.getLastCompactedPosition())).isEqualTo(last);
        assertThat(get(after.compactedStreamId())).contains(id);
        assertThat(all(after)).containsExactly("a=2", "b=1");

        add(message("b", "2", 103));
        get(after.compact());
        assertThat(all(after)).containsExactly("a=2", "b=2");
    }

    @Test
    void theViewOutlivesTheTrimmedTopicAndTheNextRunStartsFromIt() throws Exception {
        for (int i = 0; i < 12; i++) {
            add(message("k" + (i % 3), "v" + i, 100 + i));
        }
        Position horizon = add(message("k0", "last", 200));
        LakestreamTopicCompactionService s = service(false);
        get(s.compact());
        // The __compaction cursor is the only one, at the horizon: retention trims every ledger it consumed.
        CompletableFuture<Void> trimmed = new CompletableFuture<>();
        ml.trimConsumedLedgersInBackground(trimmed);
        get(trimmed);
        assertThat(ml.getLedgersInfo().firstKey()).isGreaterThan(horizon.getLedgerId() - 1);
        assertThat(ml.getFirstPosition().getLedgerId()).isGreaterThanOrEqualTo(horizon.getLedgerId());

        reopen();
        LakestreamTopicCompactionService after = service(false);
        assertThat(get(after.getLastCompactedPosition())).isEqualTo(horizon);
        assertThat(all(after)).containsExactly("k1=v10", "k2=v11", "k0=last");

        add(message("k1", "new", 300));
        get(after.compact());
        assertThat(all(after)).containsExactly("k2=v11", "k0=last", "k1=new");
    }

    @Test
    void readsFromArbitraryPositions() throws Exception {
        List<Position> kept = new ArrayList<>();
        Position removed = null;
        for (int i = 0; i < 10; i++) {
            Position p = add(message("k" + i, "v" + i, 100 + i));
            if (i == 3) {
                removed = p;
            } else {
                kept.add(p);
            }
        }
        kept.add(add(message("k3", "v3b", 200)));
        LakestreamTopicCompactionService s = service(false);
        get(s.compact());

        assertThat(positions(s, PositionFactory.EARLIEST, 3)).containsExactlyElementsOf(kept.subList(0, 3));
        assertThat(positions(s, kept.get(4), 2)).containsExactlyElementsOf(kept.subList(4, 6));
        // A position that is not in the view: reading starts at the next one that is.
        assertThat(positions(s, removed, 1)).containsExactly(kept.get(3));
        assertThat(positions(s, kept.get(0), 100)).containsExactlyElementsOf(kept);
        assertThat(positions(s, kept.get(kept.size() - 1).getNext(), 5)).isEmpty();
        assertThat(positions(s, PositionFactory.LATEST, 5)).isEmpty();
    }

    @Test
    void findsTheFirstEntryPublishedAtOrAfterATime() throws Exception {
        List<Position> ps = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            ps.add(add(message("k" + i, "v", 1000 + 100L * i)));
        }
        LakestreamTopicCompactionService s = service(false);
        get(s.compact());
        assertThat(get(s.findEntryByPublishTime(0))).isEqualTo(ps.get(0));
        assertThat(get(s.findEntryByPublishTime(1000))).isEqualTo(ps.get(0));
        assertThat(get(s.findEntryByPublishTime(1150))).isEqualTo(ps.get(2));
        assertThat(get(s.findEntryByPublishTime(1700))).isEqualTo(ps.get(7));
        assertThat(get(s.findEntryByPublishTime(1701))).isNull();
    }

    @Test
    void aFailedRunLeavesThePreviousViewIntact() throws Exception {
        Position first = add(message("a", "1", 100));
        LakestreamTopicCompactionService s = service(false);
        get(s.compact());
        long committed = get(s.compactedStreamId()).orElseThrow();

        add(message("a", "2", 101));
        brokenCursor = mock(ManagedCursor.class);
        when(brokenCursor.getName()).thenReturn(CompactionTopic.CURSOR);
        doAnswer(inv -> {
                    inv.<AsyncCallbacks.MarkDeleteCallback>getArgument(2)
                            .markDeleteFailed(new ManagedLedgerException("injected: metadata store unavailable"), null);
                    return null;
                })
                .when(brokenCursor)
                .asyncMarkDelete(any(), anyMap(), any(), any());

        assertThatThrownBy(() -> get(s.compact()))
                .hasMessageContaining("could not commit")
                .hasMessageContaining("injected");
        assertThat(statistics().getCompactionFailedCount()).isEqualTo(1);
        assertThat(statistics().getLastCompactionFailedTimestamp()).isPositive();
        assertThat(statistics().getCompactionSucceedCount()).isEqualTo(1);

        assertThat(get(s.compactedStreamId())).contains(committed);
        assertThat(get(s.getLastCompactedPosition())).isEqualTo(first);
        assertThat(all(s)).containsExactly("a=1");
        // The failed run's stream is gone; the committed one stays.
        assertThat(streamsOfTopic()).containsExactly(committed);
        // A restart sees the same.
        reopen();
        assertThat(all(service(false))).containsExactly("a=1");

        brokenCursor = null;
        LakestreamTopicCompactionService again = service(false);
        get(again.compact());
        assertThat(all(again)).containsExactly("a=2");
    }

    @Test
    void compactionsOfOneTopicDoNotOverlap() throws Exception {
        for (int i = 0; i < 50; i++) {
            add(message("k" + (i % 5), "v" + i, 100 + i));
        }
        LakestreamTopicCompactionService s = service(false);
        CompletableFuture<Void> one = s.compact();
        CompletableFuture<Void> two = s.compact();
        get(one);
        assertThatThrownBy(() -> get(two)).hasMessageContaining("already running");
        assertThat(all(s)).containsExactly("k0=v45", "k1=v46", "k2=v47", "k3=v48", "k4=v49");
    }
}
