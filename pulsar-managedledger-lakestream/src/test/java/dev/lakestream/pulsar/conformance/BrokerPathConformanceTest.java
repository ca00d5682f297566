package dev.lakestream.pulsar.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.bookkeeper.mledger.AsyncCallbacks;
import org.apache.bookkeeper.mledger.Entry;
import org.apache.bookkeeper.mledger.ManagedCursor;
import org.apache.bookkeeper.mledger.ManagedLedger;
import org.apache.bookkeeper.mledger.ManagedLedgerException;
import org.apache.bookkeeper.mledger.Position;
import org.apache.bookkeeper.mledger.PositionFactory;
import org.apache.bookkeeper.mledger.ReadOnlyCursor;
import org.apache.bookkeeper.mledger.ReadOnlyManagedLedger;
import org.apache.pulsar.common.api.proto.CommandSubscribe.InitialPosition;
import org.apache.pulsar.common.policies.data.ManagedLedgerInternalStats;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * The exact calls the broker makes on its main paths: topic load ({@code asyncOpen} with an ownership checker),
 * durable subscribe (the six-argument {@code asyncOpenCursor}), stats, and the read-only views used by
 * transactions and offline tools.
 */
public abstract class BrokerPathConformanceTest extends ManagedLedgerConformanceTest {

    private CompletableFuture<ManagedLedger> asyncOpen(Object ctx, CompletableFuture<Object> seenCtx) {
        CompletableFuture<ManagedLedger> f = new CompletableFuture<>();
        factory.asyncOpen(
                name,
                config(),
                new AsyncCallbacks.OpenLedgerCallback() {
                    @Override
                    public void openLedgerComplete(ManagedLedger ledger, Object c) {
                        seenCtx.complete(c);
                        f.complete(ledger);
                    }

                    @Override
                    public void openLedgerFailed(ManagedLedgerException exception, Object c) {
                        seenCtx.complete(c);
                        f.completeExceptionally(exception);
                    }
                },
                () -> CompletableFuture.completedFuture(true),
                ctx);
        return f;
    }

    @Test
    void topicLoadOpensTheLedgerAsynchronously() throws Exception {
        Object ctx = new Object();
        CompletableFuture<Object> seenCtx = new CompletableFuture<>();
        ManagedLedger ml = await(asyncOpen(ctx, seenCtx));
        assertThat(await(seenCtx)).isSameAs(ctx);
        assertThat(ml.getName()).isEqualTo(name);
        ml.addEntry(bytes("x"));
        assertThat(factory.getManagedLedgers()).containsKey(name);

        CompletableFuture<Object> again = new CompletableFuture<>();
        assertThat(await(asyncOpen(null, again))).isSameAs(ml);
    }

    @Test
    void durableSubscribeOpensACursorWithProperties() throws Exception {
        ManagedLedger ml = open();
        List<Position> ps = addEntries(ml, "e", 3);
        CompletableFuture<ManagedCursor> opened = new CompletableFuture<>();
        Object ctx = new Object();
        ml.asyncOpenCursor(
                "sub",
                InitialPosition.Earliest,
                Map.of("dedup", 7L),
                Map.of("owner", "me"),
                new AsyncCallbacks.OpenCursorCallback() {
                    @Override
                    @SuppressWarnings("ReferenceEquality") // the callback must hand back the very ctx object given
                    public void openCursorComplete(ManagedCursor cursor, Object c) {
                        if (c == ctx) {
                            opened.complete(cursor);
                        } else {
                            opened.completeExceptionally(new AssertionError("wrong ctx " + c));
                        }
                    }

                    @Override
                    public void openCursorFailed(ManagedLedgerException exception, Object c) {
                        opened.completeExceptionally(exception);
                    }
                },
                ctx);
        ManagedCursor c = await(opened);
        assertThat(c.getName()).isEqualTo("sub");
        assertThat(c.getProperties()).isEqualTo(Map.of("dedup", 7L));
        assertThat(c.getCursorProperties()).containsEntry("owner", "me");
        assertPos(c.getReadPosition(), ps.get(0));
        assertThat(c.getNumberOfEntriesInBacklog(false)).isEqualTo(3);
    }

    @Test
    void statsDescribeTheLedgerAndItsCursors() throws Exception {
        ManagedLedger ml = open(config().setMaxEntriesPerLedger(3));
        ManagedCursor c = ml.openCursor("c", InitialPosition.Earliest);
        List<Position> ps = addEntries(ml, "e", 7);
        c.markDelete(ps.get(1));
        assertThat(ml.getPendingAddEntriesCount()).isZero();
        assertThat(ml.getStats()).isNotNull();
        assertThat(c.getStats()).isNotNull();
        ManagedLedgerInternalStats.CursorStats cs = c.getCursorStats();
        assertThat(cs).isNotNull();
        assertThat(cs.markDeletePosition)
                .isEqualTo(ps.get(1).getLedgerId() + ":" + ps.get(1).getEntryId());

        ManagedLedgerInternalStats stats = await(ml.getManagedLedgerInternalStats(false));
        assertThat(stats.numberOfEntries).isEqualTo(7);
        assertThat(stats.totalSize)
                .isEqualTo(names("e", 0, 7).stream().mapToLong(String::length).sum());
        Position lac = ml.getLastConfirmedEntry();
        assertThat(stats.lastConfirmedEntry).isEqualTo(lac.getLedgerId() + ":" + lac.getEntryId());
        assertThat(stats.cursors).containsKey("c");
        assertThat(stats.ledgers.stream().map(l -> l.ledgerId).toList())
                .containsAll(ps.stream().map(Position::getLedgerId).distinct().toList());
    }

    @Test
    void readOnlyCursorReadsFromItsStartPosition() throws Exception {
        ManagedLedger ml = open(config().setMaxEntriesPerLedger(3));
        List<Position> ps = addEntries(ml, "e", 8);

        ReadOnlyCursor all = factory.openReadOnlyCursor(name, PositionFactory.EARLIEST, config());
        try {
            assertThat(all.getNumberOfEntries()).isEqualTo(8);
            assertThat(all.hasMoreEntries()).isTrue();
            assertThat(texts(drain(all.readEntries(5)))).isEqualTo(names("e", 0, 5));
            assertThat(all.getNumberOfEntries()).isEqualTo(3);
            all.skipEntries(2);
            assertThat(texts(drain(all.readEntries(5)))).containsExactly("e-7");
            assertThat(all.hasMoreEntries()).isFalse();
        } finally {
            all.close();
        }

        ReadOnlyCursor fromMiddle = factory.openReadOnlyCursor(name, ps.get(4), config());
        try {
            assertThat(fromMiddle.getNumberOfEntries())
                    .as("the start position is included")
                    .isEqualTo(4);
            assertThat(texts(drain(fromMiddle.readEntries(10)))).isEqualTo(names("e", 4, 8));
        } finally {
            fromMiddle.close();
        }
        assertThat(ml.addEntry(bytes("still-writable"))).isNotNull();
    }

    @Test
    void readOnlyCursorOnAMissingLedgerFails() {
        assertThatThrownBy(() -> factory.openReadOnlyCursor(name, PositionFactory.EARLIEST, config()))
                .isInstanceOf(ManagedLedgerException.ManagedLedgerNotFoundException.class);
    }

    @Test
    void readOnlyManagedLedgerReadsEntriesAndProperties() throws Exception {
        ManagedLedger ml = open();
        List<Position> ps = addEntries(ml, "e", 4);
        ml.setProperty("k", "v");

        CompletableFuture<ReadOnlyManagedLedger> opened = new CompletableFuture<>();
        factory.asyncOpenReadOnlyManagedLedger(
                name,
                new AsyncCallbacks.OpenReadOnlyManagedLedgerCallback() {
                    @Override
                    public void openReadOnlyManagedLedgerComplete(ReadOnlyManagedLedger managedLedger, Object ctx) {
                        opened.complete(managedLedger);
                    }

                    @Override
                    public void openReadOnlyManagedLedgerFailed(ManagedLedgerException exception, Object ctx) {
                        opened.completeExceptionally(exception);
                    }
                },
                config(),
                null);
        ReadOnlyManagedLedger ro = await(opened);
        assertThat(ro.getNumberOfEntries()).isEqualTo(4);
        assertThat(ro.getProperties()).containsEntry("k", "v");

        CompletableFuture<Entry> read = new CompletableFuture<>();
        ro.asyncReadEntry(
                ps.get(2),
                new AsyncCallbacks.ReadEntryCallback() {
                    @Override
                    public void readEntryComplete(Entry entry, Object ctx) {
                        read.complete(entry);
                    }

                    @Override
                    public void readEntryFailed(ManagedLedgerException exception, Object ctx) {
                        read.completeExceptionally(exception);
                    }
                },
                null);
        Entry e = await(read);
        try {
            assertThat(text(e)).isEqualTo("e-2");
        } finally {
            e.release();
        }
    }

    /**
     * The managed-ledger interceptor's {@code processPayloadBeforeLedgerWrite} (the broker's entry payload processors)
     * decides what is stored; the add callback still gets the entry as added, and the processed payload is released
     * once the add is done, as with Pulsar's managed ledger.
     */
    @Test
    void payloadProcessorsTransformWhatIsStored() throws Exception {
        java.util.concurrent.atomic.AtomicInteger released = new java.util.concurrent.atomic.AtomicInteger();
        java.util.List<Object> contexts = new java.util.concurrent.CopyOnWriteArrayList<>();
        org.apache.bookkeeper.mledger.intercept.ManagedLedgerInterceptor interceptor =
                new org.apache.bookkeeper.mledger.intercept.ManagedLedgerInterceptor() {
                    @Override
                    public void beforeAddEntry(AddEntryOperation op, int numberOfMessages) {}

                    @Override
                    public void onManagedLedgerPropertiesInitialize(Map<String, String> properties) {}

                    @Override
                    public CompletableFuture<Void> onManagedLedgerLastLedgerInitialize(
                            String name, LastEntryHandle handle) {
                        return CompletableFuture.completedFuture(null);
                    }

                    @Override
                    public void onUpdateManagedLedgerInfo(Map<String, String> properties) {}

                    @Override
                    public PayloadProcessorHandle processPayloadBeforeLedgerWrite(
                            Object ctx, io.netty.buffer.ByteBuf payload) {
                        contexts.add(ctx);
                        io.netty.buffer.ByteBuf processed = io.netty.buffer.Unpooled.wrappedBuffer(
                                bytes("stored:"), io.netty.buffer.ByteBufUtil.getBytes(payload));
                        return new PayloadProcessorHandle() {
                            @Override
                            public io.netty.buffer.ByteBuf getProcessedPayload() {
                                return processed;
                            }

                            @Override
                            public void release() {
                                released.incrementAndGet();
                                processed.release();
                            }
                        };
                    }
                };
        org.apache.bookkeeper.mledger.ManagedLedgerConfig withInterceptor = config();
        withInterceptor.setManagedLedgerInterceptor(interceptor);
        ManagedLedger ml = open(withInterceptor);
        ManagedCursor c = ml.openCursor("c", InitialPosition.Earliest);
        CompletableFuture<String> seenByCallback = new CompletableFuture<>();
        ml.asyncAddEntry(
                bytes("a"),
                new AsyncCallbacks.AddEntryCallback() {
                    @Override
                    public void addComplete(Position position, io.netty.buffer.ByteBuf entryData, Object ctx) {
                        seenByCallback.complete(
                                new String(io.netty.buffer.ByteBufUtil.getBytes(entryData), StandardCharsets.UTF_8)
                                        + "@" + ctx);
                    }

                    @Override
                    public void addFailed(ManagedLedgerException exception, Object ctx) {
                        seenByCallback.completeExceptionally(exception);
                    }
                },
                "ctx-a");
        assertThat(await(seenByCallback)).isEqualTo("a@ctx-a");
        addEntries(ml, "e", 2);
        assertThat(texts(readAll(c))).containsExactly("stored:a", "stored:e-0", "stored:e-1");
        assertThat(contexts).hasSize(3).first().isEqualTo("ctx-a");
        Awaitility.await()
                .atMost(WAIT)
                .pollInterval(Duration.ofMillis(20))
                .ignoreExceptions()
                .untilAsserted(() -> assertThat(released.get()).isEqualTo(3));
    }
}
