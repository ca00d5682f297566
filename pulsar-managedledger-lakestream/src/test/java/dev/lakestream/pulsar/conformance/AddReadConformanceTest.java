package dev.lakestream.pulsar.conformance;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.common.collect.Range;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import org.apache.bookkeeper.mledger.AsyncCallbacks;
import org.apache.bookkeeper.mledger.Entry;
import org.apache.bookkeeper.mledger.ManagedCursor;
import org.apache.bookkeeper.mledger.ManagedLedger;
import org.apache.bookkeeper.mledger.ManagedLedgerConfig;
import org.apache.bookkeeper.mledger.ManagedLedgerException;
import org.apache.bookkeeper.mledger.Position;
import org.apache.bookkeeper.mledger.PositionBound;
import org.apache.bookkeeper.mledger.PositionFactory;
import org.apache.pulsar.common.api.proto.CommandSubscribe.InitialPosition;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** Appends and reads: positions, completion order, data round trip, counters, rollover into several ledgers. */
public abstract class AddReadConformanceTest extends ManagedLedgerConformanceTest {

    @Test
    void syncAddsReturnIncreasingPositionsAndUpdateTheCounters() throws Exception {
        ManagedLedger ml = open();
        assertThat(ml.getName()).isEqualTo(name);
        assertThat(ml.getNumberOfEntries()).isZero();
        assertThat(ml.getTotalSize()).isZero();

        List<Position> positions = addEntries(ml, "e", 5);

        assertStrictlyIncreasing(positions);
        assertPos(ml.getLastConfirmedEntry(), positions.get(4));
        assertThat(ml.getNumberOfEntries()).isEqualTo(5);
        long expectedSize = names("e", 0, 5).stream()
                .mapToLong(s -> s.getBytes(UTF_8).length)
                .sum();
        assertThat(ml.getTotalSize()).isEqualTo(expectedSize);
        for (Position p : positions) {
            assertThat(p.getLedgerId()).as("ledger ids are non-negative").isNotNegative();
            assertThat(p.getEntryId()).isNotNegative();
        }
    }

    @Test
    void asyncAddsCompleteInCallOrderWithIncreasingPositions() throws Exception {
        ManagedLedger ml = open();
        int n = 200;
        List<Integer> completionOrder = Collections.synchronizedList(new ArrayList<>());
        List<Position> completionPositions = Collections.synchronizedList(new ArrayList<>());
        Map<Integer, String> dataSeen = Collections.synchronizedMap(new LinkedHashMap<>());
        CompletableFuture<Void> all = new CompletableFuture<>();
        for (int i = 0; i < n; i++) {
            ml.asyncAddEntry(
                    bytes("a-" + i),
                    new AsyncCallbacks.AddEntryCallback() {
                        @Override
                        public void addComplete(Position position, ByteBuf entryData, Object ctx) {
                            int idx = (Integer) ctx;
                            dataSeen.put(idx, entryData == null ? null : entryData.toString(UTF_8));
                            completionPositions.add(position);
                            completionOrder.add(idx);
                            if (completionOrder.size() == n) {
                                all.complete(null);
                            }
                        }

                        @Override
                        public void addFailed(ManagedLedgerException exception, Object ctx) {
                            all.completeExceptionally(exception);
                        }
                    },
                    i);
        }
        await(all);

        List<Integer> expected = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            expected.add(i);
        }
        assertThat(completionOrder).as("addComplete order equals call order").isEqualTo(expected);
        assertStrictlyIncreasing(completionPositions);
        for (int i = 0; i < n; i++) {
            assertThat(dataSeen.get(i))
                    .as("entryData passed to addComplete #%s", i)
                    .isEqualTo("a-" + i);
        }
        assertPos(ml.getLastConfirmedEntry(), completionPositions.get(n - 1));
        assertThat(ml.getNumberOfEntries()).isEqualTo(n);
    }

    @Test
    void lastConfirmedEntryHasAdvancedWhenAddCompleteRuns() throws Exception {
        ManagedLedger ml = open();
        CompletableFuture<Position[]> seen = new CompletableFuture<>();
        ml.asyncAddEntry(
                bytes("x"),
                new AsyncCallbacks.AddEntryCallback() {
                    @Override
                    public void addComplete(Position position, ByteBuf entryData, Object ctx) {
                        seen.complete(new Position[] {position, ml.getLastConfirmedEntry()});
                    }

                    @Override
                    public void addFailed(ManagedLedgerException exception, Object ctx) {
                        seen.completeExceptionally(exception);
                    }
                },
                null);
        Position[] both = await(seen);
        assertPos(both[1], both[0]);
    }

    @Test
    void asyncAddOfByteBufKeepsTheCallersReferenceAndPassesThePersistedData() throws Exception {
        ManagedLedger ml = open();
        ByteBuf buf = Unpooled.copiedBuffer(bytes("payload-with-buffer"));
        CompletableFuture<String> seen = new CompletableFuture<>();
        ml.asyncAddEntry(
                buf,
                3,
                new AsyncCallbacks.AddEntryCallback() {
                    @Override
                    public void addComplete(Position position, ByteBuf entryData, Object ctx) {
                        seen.complete(entryData.toString(UTF_8));
                    }

                    @Override
                    public void addFailed(ManagedLedgerException exception, Object ctx) {
                        seen.completeExceptionally(exception);
                    }
                },
                null);
        assertThat(await(seen)).isEqualTo("payload-with-buffer");
        // The managed ledger retains the buffer for the add and releases only its own reference.
        Awaitility.await()
                .atMost(WAIT)
                .pollInterval(Duration.ofMillis(20))
                .ignoreExceptions()
                .untilAsserted(() -> assertThat(buf.refCnt()).isEqualTo(1));
        assertThat(buf.readableBytes())
                .as("the caller's reader index is untouched")
                .isEqualTo(19);
        buf.release();

        ManagedCursor c = ml.openCursor("c", InitialPosition.Earliest);
        assertThat(texts(readAll(c))).containsExactly("payload-with-buffer");
    }

    @Test
    void addEntryWithOffsetAndLengthStoresOnlyTheSlice() throws Exception {
        ManagedLedger ml = open();
        byte[] data = bytes("0123456789");
        Position p = ml.addEntry(data, 2, 5);
        Position q = ml.addEntry(data, 1, 7, 2); // numberOfMessages, offset, length

        ManagedCursor c = ml.openCursor("c", InitialPosition.Earliest);
        List<Read> reads = readAll(c);
        assertThat(texts(reads)).containsExactly("23456", "78");
        assertThat(positionsOf(reads)).containsExactly(norm(p), norm(q));
        assertThat(ml.getTotalSize()).isEqualTo(7);
    }

    @Test
    void entryDataAndMetadataRoundTrip() throws Exception {
        ManagedLedger ml = open();
        Random random = new Random(42);
        int[] sizes = {1, 100, 4096, 64 * 1024};
        List<byte[]> payloads = new ArrayList<>();
        List<Position> positions = new ArrayList<>();
        for (int size : sizes) {
            byte[] b = new byte[size];
            random.nextBytes(b);
            payloads.add(b);
            positions.add(ml.addEntry(b));
        }

        ManagedCursor c = ml.openCursor("c", InitialPosition.Earliest);
        List<Entry> entries = c.readEntries(10);
        try {
            assertThat(entries).hasSize(sizes.length);
            for (int i = 0; i < sizes.length; i++) {
                Entry e = entries.get(i);
                assertPos(e.getPosition(), positions.get(i));
                assertThat(e.getLedgerId()).isEqualTo(positions.get(i).getLedgerId());
                assertThat(e.getEntryId()).isEqualTo(positions.get(i).getEntryId());
                assertThat(e.getLength()).isEqualTo(sizes[i]);
                assertThat(e.getDataBuffer().readableBytes()).isEqualTo(sizes[i]);
                assertThat(e.getData()).isEqualTo(payloads.get(i));
                assertThat(e.getData()).as("getData twice").isEqualTo(payloads.get(i));
            }
        } finally {
            entries.forEach(Entry::release);
        }
    }

    @Test
    void readEntryByPosition() throws Exception {
        ManagedLedger ml = open();
        List<Position> ps = addEntries(ml, "e", 4);
        Entry e = await(readEntryAsync(ml, ps.get(2)));
        try {
            assertPos(e.getPosition(), ps.get(2));
            assertThat(text(e)).isEqualTo("e-2");
        } finally {
            e.release();
        }
    }

    @Test
    void readEntryBeyondTheEndFails() throws Exception {
        ManagedLedger ml = open();
        List<Position> ps = addEntries(ml, "e", 3);
        Position last = ps.get(2);
        assertThatThrownBy(() ->
                        await(readEntryAsync(ml, PositionFactory.create(last.getLedgerId(), last.getEntryId() + 1))))
                .isInstanceOf(ManagedLedgerException.class);
        assertThatThrownBy(() -> await(readEntryAsync(ml, PositionFactory.create(last.getLedgerId() + 1000, 0))))
                .as("a ledger id that does not exist")
                .isInstanceOf(ManagedLedgerException.class);
    }

    @Test
    void cursorReadBeyondTheEndReturnsNothing() throws Exception {
        ManagedLedger ml = open();
        ManagedCursor c = ml.openCursor("c", InitialPosition.Earliest);
        assertThat(c.readEntries(10)).isEmpty();
        addEntries(ml, "e", 2);
        assertThat(texts(drain(c.readEntries(10)))).containsExactly("e-0", "e-1");
        assertThat(c.readEntries(10)).isEmpty();
        assertThat(c.hasMoreEntries()).isFalse();
    }

    @Test
    void rolloverSpreadsEntriesOverSeveralLedgersWithInfo() throws Exception {
        ManagedLedgerConfig cfg = config().setMaxEntriesPerLedger(3);
        ManagedLedger ml = open(cfg);
        long before = System.currentTimeMillis();
        List<Position> ps = addEntries(ml, "r", 10);
        assertStrictlyIncreasing(ps);

        Map<Long, List<Position>> byLedger = new LinkedHashMap<>();
        Map<Long, Long> sizeByLedger = new LinkedHashMap<>();
        for (int i = 0; i < ps.size(); i++) {
            byLedger.computeIfAbsent(ps.get(i).getLedgerId(), k -> new ArrayList<>())
                    .add(ps.get(i));
            sizeByLedger.merge(ps.get(i).getLedgerId(), (long) ("r-" + i).length(), Long::sum);
        }
        assertThat(byLedger).as("10 entries at 3 per ledger").hasSize(4);
        for (List<Position> inLedger : byLedger.values()) {
            assertThat(inLedger.size()).isLessThanOrEqualTo(3);
            for (int i = 0; i < inLedger.size(); i++) {
                assertThat(inLedger.get(i).getEntryId())
                        .as("entry ids in a ledger start at 0")
                        .isEqualTo(i);
            }
        }

        NavigableMap<Long, org.apache.bookkeeper.mledger.proto.ManagedLedgerInfo.LedgerInfo> infos =
                ml.getLedgersInfo();
        assertThat(infos.keySet()).containsAll(byLedger.keySet());
        long lastLedger = ml.getLastConfirmedEntry().getLedgerId();
        for (Map.Entry<Long, List<Position>> e : byLedger.entrySet()) {
            var info = infos.get(e.getKey());
            assertThat(info.getLedgerId()).isEqualTo(e.getKey());
            if (e.getKey() != lastLedger) {
                // closed ledgers carry their entry count, size and close time
                assertThat(info.getEntries())
                        .as("entries of ledger %s", e.getKey())
                        .isEqualTo(e.getValue().size());
                assertThat(info.getSize()).as("size of ledger %s", e.getKey()).isEqualTo(sizeByLedger.get(e.getKey()));
                assertThat(info.getTimestamp())
                        .as("timestamp of ledger %s", e.getKey())
                        .isBetween(before - 1000, System.currentTimeMillis() + 1000);
            }
            assertThat(ml.getOptionalLedgerInfo(e.getKey())).isPresent();
        }

        ManagedCursor c = ml.openCursor("c", InitialPosition.Earliest);
        List<Read> reads = readAll(c);
        assertThat(texts(reads)).isEqualTo(names("r", 0, 10));
        assertThat(positionsOf(reads)).isEqualTo(norm(ps));
        assertThat(ml.getNumberOfEntries()).isEqualTo(10);
    }

    @Test
    void positionNavigationAcrossLedgers() throws Exception {
        ManagedLedger ml = open(config().setMaxEntriesPerLedger(3));
        List<Position> ps = addEntries(ml, "n", 8);
        // ledgers: [0,1,2] [3,4,5] [6,7]
        assertThat(ps.get(3).getLedgerId()).isNotEqualTo(ps.get(2).getLedgerId());

        assertPos(ml.getNextValidPosition(ps.get(2)), ps.get(3));
        assertPos(ml.getNextValidPosition(ps.get(0)), ps.get(1));
        assertPos(ml.getPreviousPosition(ps.get(3)), ps.get(2));
        assertPos(ml.getPreviousPosition(ps.get(7)), ps.get(6));
        assertPos(ml.getPositionAfterN(ps.get(0), 4, PositionBound.startExcluded), ps.get(4));
        assertPos(ml.getPositionAfterN(ps.get(1), 5, PositionBound.startExcluded), ps.get(6));
        assertThat(ml.getNumberOfEntries(Range.closed(ps.get(1), ps.get(7)))).isEqualTo(7);
        assertThat(ml.getNumberOfEntries(Range.openClosed(ps.get(2), ps.get(5))))
                .isEqualTo(3);

        Position first = ml.getFirstPosition();
        assertThat(first).isNotNull();
        assertThat(first.getLedgerId()).isEqualTo(ps.get(0).getLedgerId());
        assertThat(first.compareTo(ps.get(0))).isLessThanOrEqualTo(0);
    }

    @Test
    void openingTheSameNameTwiceGivesTheSameLedger() throws Exception {
        ManagedLedger a = open();
        ManagedLedger b = open();
        assertThat(b).isSameAs(a);
        assertThat(factory.getManagedLedgers()).containsKey(name);
    }

    @Test
    void openWithoutCreateIfMissingFailsForAnUnknownLedger() {
        assertThatThrownBy(() -> factory.open(name, config().setCreateIfMissing(false)))
                .isInstanceOf(ManagedLedgerException.ManagedLedgerNotFoundException.class);
    }

    @Test
    void addAfterCloseFailsWithAlreadyClosed() throws Exception {
        ManagedLedger ml = open();
        addEntries(ml, "e", 1);
        ml.close();
        assertThatThrownBy(() -> ml.addEntry(bytes("late")))
                .isInstanceOf(ManagedLedgerException.ManagedLedgerAlreadyClosedException.class);
    }

    @Test
    void cursorReadAfterLedgerCloseFails() throws Exception {
        ManagedLedger ml = open();
        ManagedCursor c = ml.openCursor("c", InitialPosition.Earliest);
        addEntries(ml, "e", 2);
        ml.close();
        assertThatThrownBy(() -> c.readEntries(2)).isInstanceOf(ManagedLedgerException.class);
    }

    @Test
    void closedLedgerReopensWithItsEntries() throws Exception {
        ManagedLedger ml = open();
        List<Position> ps = addEntries(ml, "e", 3);
        ml.close();

        ManagedLedger again = open();
        assertThat(again).isNotSameAs(ml);
        assertPos(again.getLastConfirmedEntry(), ps.get(2));
        assertThat(again.getNumberOfEntries()).isEqualTo(3);
        Position p3 = again.addEntry(bytes("e-3"));
        assertThat(p3.compareTo(ps.get(2))).isPositive();
        assertThat(texts(readAll(again.openCursor("c", InitialPosition.Earliest))))
                .isEqualTo(names("e", 0, 4));
    }
}
