package dev.lakestream.pulsar.cursor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lakestream.core.cursor.CursorState;
import dev.lakestream.core.cursor.DurableCursor;
import dev.lakestream.core.log.LogEntry;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.apache.bookkeeper.mledger.Entry;
import org.apache.bookkeeper.mledger.ManagedLedger;
import org.apache.bookkeeper.mledger.ManagedLedgerConfig;
import org.apache.bookkeeper.mledger.ManagedLedgerException;
import org.apache.bookkeeper.mledger.Position;
import org.apache.bookkeeper.mledger.PositionFactory;
import org.apache.bookkeeper.mledger.impl.EntryImpl;
import org.junit.jupiter.api.Test;

/**
 * The cursor's ack, seek, reset and backlog logic against an in-memory {@link CursorLedger} (one virtual ledger, no
 * stores): what the conformance suites check end to end, here at the unit level.
 */
class CursorLogicTest {

    private static final long LEDGER_ID = 7;

    /** An in-memory ledger of {@code count} entries "e<offset>", offsets {@code start..count-1} readable. */
    private static final class InMemoryLedger implements CursorLedger {
        final List<String> entries = new ArrayList<>();
        final ManagedLedgerConfig config = new ManagedLedgerConfig();
        long start;
        int markDeletes;
        final List<LakestreamManagedCursor> waiting = new ArrayList<>();

        InMemoryLedger(int count) {
            for (int i = 0; i < count; i++) {
                entries.add("e" + i);
            }
        }

        @Override
        public String getName() {
            return "in-memory";
        }

        @Override
        public ManagedLedger managedLedger() {
            throw new UnsupportedOperationException("managedLedger: not needed by these tests");
        }

        @Override
        public ManagedLedgerConfig getConfig() {
            return config;
        }

        @Override
        public Executor executor() {
            return Runnable::run;
        }

        @Override
        public void schedule(Runnable task, long delay, TimeUnit unit) {
            task.run();
        }

        @Override
        public long lceOffset() {
            return entries.size() - 1L;
        }

        @Override
        public long startOffset() {
            return start;
        }

        @Override
        public long offsetOf(Position position) {
            return position.getEntryId();
        }

        @Override
        public Position positionOf(long offset) {
            return PositionFactory.create(LEDGER_ID, offset);
        }

        @Override
        public Position getLastConfirmedEntry() {
            return positionOf(lceOffset());
        }

        @Override
        public Position getFirstPosition() {
            return positionOf(start);
        }

        @Override
        public boolean isTerminated() {
            return false;
        }

        @Override
        public boolean isClosedOrDeleted() {
            return false;
        }

        @Override
        public long averageEntrySize() {
            return 2;
        }

        @Override
        public CompletableFuture<List<LogEntry>> readRaw(long from, int maxEntries, long maxBytes) {
            List<LogEntry> out = new ArrayList<>();
            for (long o = from; o <= lceOffset() && out.size() < maxEntries; o++) {
                out.add(new LogEntry(1, o, 1, 0, Unpooled.copiedBuffer(entries.get((int) o), StandardCharsets.UTF_8)));
            }
            return CompletableFuture.completedFuture(out);
        }

        @Override
        public Entry toEntry(LogEntry e) {
            EntryImpl entry = EntryImpl.create(LEDGER_ID, e.offset(), e.payload());
            e.payload().release();
            return entry;
        }

        @Override
        public CompletableFuture<Entry> readOne(long offset) {
            return readRaw(offset, 1, Long.MAX_VALUE).thenApply(l -> toEntry(l.get(0)));
        }

        @Override
        public void addWaiting(LakestreamManagedCursor cursor) {
            waiting.add(cursor);
        }

        @Override
        public void removeWaiting(LakestreamManagedCursor cursor) {
            waiting.remove(cursor);
        }

        @Override
        public void removeNonDurable(LakestreamManagedCursor cursor) {}

        @Override
        public LakestreamManagedCursor newNonDurableCursor(Position markDelete, String name) {
            return cursorOn(this, name, offsetOf(markDelete) + 1);
        }

        @Override
        public void recordMarkDelete() {
            markDeletes++;
        }

        @Override
        public void recordRead(int entries, long bytes) {}

        @Override
        public void recordReadError() {}
    }

    private static LakestreamManagedCursor cursorOn(InMemoryLedger ml, String name, long ackedBefore) {
        DurableCursor dc = new DurableCursor(1, name, CursorState.at(ackedBefore), null, null, Duration.ZERO);
        return new LakestreamManagedCursor(ml, name, dc, false);
    }

    private static Position p(long offset) {
        return PositionFactory.create(LEDGER_ID, offset);
    }

    private static List<String> read(LakestreamManagedCursor c, int n) throws Exception {
        List<String> out = new ArrayList<>();
        for (Entry e : c.readEntries(n)) {
            out.add(new String(e.getData(), StandardCharsets.UTF_8));
            e.release();
        }
        return out;
    }

    @Test
    void individualAcksAndMarkDeleteShrinkTheBacklogAndJoinUp() throws Exception {
        InMemoryLedger ml = new InMemoryLedger(10);
        LakestreamManagedCursor c = cursorOn(ml, "sub", 0);
        assertThat(c.getNumberOfEntriesInBacklog(true)).isEqualTo(10);

        c.delete(List.of(p(3), p(5)));
        assertThat(c.getNumberOfEntriesInBacklog(true)).isEqualTo(8);
        assertThat(c.isMessageDeleted(p(3))).isTrue();
        assertThat(c.isMessageDeleted(p(4))).isFalse();
        assertThat(c.getMarkDeletedPosition()).isEqualTo(p(-1));

        // Mark-deleting 2 joins the individually acked 3: the mark-delete moves to 3, 5 stays an individual ack.
        c.markDelete(p(2));
        assertThat(c.getMarkDeletedPosition()).isEqualTo(p(3));
        assertThat(c.getNumberOfEntriesInBacklog(true)).isEqualTo(5);
        assertThat(c.getTotalNonContiguousDeletedMessagesRange()).isEqualTo(1);
        assertThat(ml.markDeletes).isEqualTo(1);

        // Reads skip what is acknowledged and start after the mark-delete.
        assertThat(read(c, 3)).containsExactly("e4", "e6", "e7");
        assertThat(c.getReadPosition()).isEqualTo(p(8));
    }

    @Test
    void markDeleteAfterTheLastEntryOrBackwardsIsRefused() throws Exception {
        InMemoryLedger ml = new InMemoryLedger(5);
        LakestreamManagedCursor c = cursorOn(ml, "sub", 0);
        assertThatThrownBy(() -> c.markDelete(p(5)))
                .isInstanceOf(ManagedLedgerException.InvalidCursorPositionException.class)
                .hasMessageContaining(p(5).toString());
        c.markDelete(p(3));
        assertThatThrownBy(() -> c.markDelete(p(1)))
                .isInstanceOf(ManagedLedgerException.class)
                .hasMessageContaining("move it back");
        assertThat(c.getMarkDeletedPosition()).isEqualTo(p(3));
        assertThat(c.getNumberOfEntriesInBacklog(true)).isEqualTo(1);
    }

    @Test
    void seekStaysAfterTheMarkDeleteUnlessForcedAndRewindGoesBackToIt() throws Exception {
        InMemoryLedger ml = new InMemoryLedger(10);
        LakestreamManagedCursor c = cursorOn(ml, "sub", 0);
        c.markDelete(p(3));

        c.seek(p(8), false);
        assertThat(c.getReadPosition()).isEqualTo(p(8));
        assertThat(c.checkAndUpdateReadPositionChanged()).isTrue();
        assertThat(c.checkAndUpdateReadPositionChanged()).isFalse();
        assertThat(read(c, 5)).containsExactly("e8", "e9");

        c.seek(p(1), false);
        assertThat(c.getReadPosition()).isEqualTo(p(4));
        c.seek(p(1), true);
        assertThat(c.getReadPosition()).isEqualTo(p(1));

        c.rewind();
        assertThat(c.getReadPosition()).isEqualTo(p(4));
        assertThat(c.getNumberOfEntries()).isEqualTo(6);
    }

    @Test
    void resetMovesBothPositionsForgetsAcksAndRefusesPositionsOutsideTheLedger() throws Exception {
        InMemoryLedger ml = new InMemoryLedger(10);
        LakestreamManagedCursor c = cursorOn(ml, "sub", 0);
        c.markDelete(p(6));
        c.delete(List.of(p(8)));

        c.resetCursor(p(2));
        assertThat(c.getReadPosition()).isEqualTo(p(2));
        assertThat(c.getMarkDeletedPosition()).isEqualTo(p(1));
        assertThat(c.isMessageDeleted(p(8))).isFalse();
        assertThat(c.getNumberOfEntriesInBacklog(true)).isEqualTo(8);

        assertThatThrownBy(() -> c.resetCursor(p(12)))
                .isInstanceOf(ManagedLedgerException.InvalidCursorPositionException.class)
                .hasMessageContaining("not within the ledger");
    }

    @Test
    void backlogAndSkipCountFromTheStartOffsetWhenTheHeadWasTrimmed() throws Exception {
        InMemoryLedger ml = new InMemoryLedger(10);
        ml.start = 4;
        LakestreamManagedCursor c = cursorOn(ml, "sub", 0);
        assertThat(c.getNumberOfEntriesInBacklog(true)).isEqualTo(6);
        assertThat(c.getMarkDeletedPosition()).isEqualTo(p(3));
        assertThat(c.getReadPosition()).isEqualTo(p(4));

        c.delete(List.of(p(5)));
        c.skipEntries(2, org.apache.bookkeeper.mledger.ManagedCursor.IndividualDeletedEntries.Exclude);
        // Skipping 2 unacknowledged entries from 4: 4 and 6 (5 is acknowledged), so the mark-delete lands on 6.
        assertThat(c.getMarkDeletedPosition()).isEqualTo(p(6));
        assertThat(c.getNumberOfEntriesInBacklog(true)).isEqualTo(3);

        c.clearBacklog();
        assertThat(c.getNumberOfEntriesInBacklog(true)).isZero();
        assertThat(c.hasMoreEntries()).isFalse();
    }
}
