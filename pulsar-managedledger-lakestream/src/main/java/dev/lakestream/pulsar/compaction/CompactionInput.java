package dev.lakestream.pulsar.compaction;

import dev.lakestream.core.StreamLog;
import dev.lakestream.core.log.LogEntry;
import io.netty.buffer.ByteBuf;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.BiFunction;
import org.apache.bookkeeper.mledger.AsyncCallbacks;
import org.apache.bookkeeper.mledger.Entry;
import org.apache.bookkeeper.mledger.ManagedCursor;
import org.apache.bookkeeper.mledger.ManagedLedger;
import org.apache.bookkeeper.mledger.ManagedLedgerException;
import org.apache.bookkeeper.mledger.Position;
import org.apache.bookkeeper.mledger.PositionFactory;
import org.apache.pulsar.common.protocol.Commands;

/**
 * What a compaction run reads, in order: the previous compacted view (its stream, if any), then the topic's messages
 * after the previous horizon up to {@code end}. Each message is handed to a visitor on {@code executor} as (original
 * position, Pulsar bytes); the visitor may return a future to be waited for before the next page (back-pressure for
 * appends). Buffers are released after the visitor returns.
 */
final class CompactionInput {

    static final int PAGE_ENTRIES = 200;
    static final long PAGE_BYTES = 8L << 20;

    private final StreamLog previous;
    private final long previousEntries;
    private final ManagedLedger ledger;
    private final Position after;
    private final Position end;
    private final Executor executor;

    /**
     * @param previous the previous compacted stream or null
     * @param after the previous horizon (messages after it are read), or null to read from the first
     * @param end the last position to read (the topic's last entry when the run started)
     */
    CompactionInput(
            StreamLog previous,
            long previousEntries,
            ManagedLedger ledger,
            Position after,
            Position end,
            Executor executor) {
        this.previous = previous;
        this.previousEntries = previousEntries;
        this.ledger = ledger;
        this.after = after;
        this.end = end;
        this.executor = executor;
    }

    /** Visits every message; completes when all were visited (and their futures completed). */
    CompletableFuture<Void> forEach(BiFunction<Position, ByteBuf, CompletableFuture<Void>> visitor) {
        CompletableFuture<Void> done =
                previous == null ? CompletableFuture.completedFuture(null) : readStream(0, visitor);
        return done.thenCompose(v -> readTopic(visitor));
    }

    private CompletableFuture<Void> readStream(long from, BiFunction<Position, ByteBuf, CompletableFuture<Void>> v) {
        if (from >= previousEntries) {
            return CompletableFuture.completedFuture(null);
        }
        return previous.read(from, PAGE_ENTRIES, PAGE_BYTES)
                .thenComposeAsync(
                        entries -> {
                            if (entries.isEmpty()) {
                                return CompletableFuture.failedFuture(new IllegalStateException("compacted " + previous
                                        + " ends at offset " + from + " but holds " + previousEntries + " entries"));
                            }
                            CompletableFuture<Void> pending = CompletableFuture.completedFuture(null);
                            long next = from;
                            try {
                                for (LogEntry e : entries) {
                                    String where = previous + " offset " + e.offset();
                                    pending = chain(
                                            pending,
                                            v.apply(
                                                    CompactedRecord.position(e.payload(), where),
                                                    CompactedRecord.message(e.payload(), where)));
                                    next = e.endOffset();
                                }
                            } finally {
                                release(entries);
                            }
                            long n = next;
                            return pending.thenCompose(x -> readStream(n, v));
                        },
                        executor);
    }

    private CompletableFuture<Void> readTopic(BiFunction<Position, ByteBuf, CompletableFuture<Void>> v) {
        if (end == null || (after != null && end.compareTo(after) <= 0)) {
            return CompletableFuture.completedFuture(null);
        }
        ManagedCursor cursor;
        try {
            cursor = ledger.newNonDurableCursor(
                    after == null ? PositionFactory.EARLIEST : after,
                    "__compaction-run-" + java.util.UUID.randomUUID());
        } catch (ManagedLedgerException e) {
            return CompletableFuture.failedFuture(e);
        }
        CompletableFuture<Void> done = readTopicPage(cursor, v);
        return done.whenComplete((x, e) -> ledger.asyncDeleteCursor(
                cursor.getName(),
                new AsyncCallbacks.DeleteCursorCallback() {
                    @Override
                    public void deleteCursorComplete(Object ctx) {}

                    @Override
                    public void deleteCursorFailed(ManagedLedgerException ex, Object ctx) {}
                },
                null));
    }

    private CompletableFuture<Void> readTopicPage(
            ManagedCursor cursor, BiFunction<Position, ByteBuf, CompletableFuture<Void>> v) {
        CompletableFuture<List<Entry>> read = new CompletableFuture<>();
        cursor.asyncReadEntries(
                PAGE_ENTRIES,
                PAGE_BYTES,
                new AsyncCallbacks.ReadEntriesCallback() {
                    @Override
                    public void readEntriesComplete(List<Entry> entries, Object ctx) {
                        read.complete(entries);
                    }

                    @Override
                    public void readEntriesFailed(ManagedLedgerException e, Object ctx) {
                        read.completeExceptionally(e);
                    }
                },
                null,
                end);
        return read.thenComposeAsync(
                entries -> {
                    if (entries.isEmpty()) {
                        return CompletableFuture.completedFuture(null);
                    }
                    CompletableFuture<Void> pending = CompletableFuture.completedFuture(null);
                    Position last = null;
                    try {
                        for (Entry e : entries) {
                            ByteBuf message = e.getDataBuffer().duplicate();
                            Commands.skipBrokerEntryMetadataIfExist(message);
                            pending = chain(pending, v.apply(e.getPosition(), message));
                            last = e.getPosition();
                        }
                    } finally {
                        entries.forEach(Entry::release);
                    }
                    boolean more = last.compareTo(end) < 0;
                    return pending.thenCompose(
                            x -> more ? readTopicPage(cursor, v) : CompletableFuture.completedFuture(null));
                },
                executor);
    }

    private static CompletableFuture<Void> chain(CompletableFuture<Void> a, CompletableFuture<Void> b) {
        return b == null ? a : a.thenCombine(b, (x, y) -> null);
    }

    private static void release(List<LogEntry> entries) {
        for (LogEntry e : entries) {
            e.payload().release();
        }
    }
}
