package dev.lakestream.pulsar.bench;

import dev.lakestream.core.Lakestream;
import dev.lakestream.core.StreamLog;
import dev.lakestream.core.catalog.StreamInfo;
import dev.lakestream.core.log.LogEntry;
import dev.lakestream.pulsar.LakestreamManagedLedgerFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.bookkeeper.mledger.AsyncCallbacks.ReadEntriesCallback;
import org.apache.bookkeeper.mledger.Entry;
import org.apache.bookkeeper.mledger.ManagedCursor;
import org.apache.bookkeeper.mledger.ManagedLedgerException;
import org.apache.bookkeeper.mledger.PositionFactory;
import org.apache.pulsar.common.api.proto.CommandSubscribe.InitialPosition;

/**
 * Catch-up reads of every entry of a set of managed ledgers, all ledgers at once, each sequentially in batches
 * of {@link #BATCH}: through the core ({@code StreamLog.read} on the ledgers' streams) or through a managed cursor.
 */
final class CatchUp {

    record Read(double seconds, long entries, long bytes) {
        double mibPerSecond() {
            return bytes / (double) (1 << 20) / seconds;
        }

        double entriesPerSecond() {
            return entries / seconds;
        }
    }

    static final int BATCH = 1000;
    private static final long BATCH_BYTES = 1L << 20;

    /** Reads the streams behind {@code names} from their start to their end with the core's reader. */
    static Read core(Lakestream log, List<String> names) throws Exception {
        List<StreamLog> streams = new ArrayList<>();
        List<long[]> ranges = new ArrayList<>();
        for (String name : names) {
            StreamInfo info = log.catalog()
                    .lookup(LakestreamManagedLedgerFactory.NAMESPACE, name)
                    .join()
                    .orElseThrow(() -> new IllegalStateException("no stream for " + name));
            StreamLog s = log.stream(info);
            streams.add(s);
            ranges.add(new long[] {s.startOffset().join(), s.endOffset().join()});
        }
        AtomicLong entries = new AtomicLong();
        AtomicLong bytes = new AtomicLong();
        long t0 = System.nanoTime();
        List<CompletableFuture<Void>> all = new ArrayList<>();
        for (int i = 0; i < streams.size(); i++) {
            all.add(readCore(streams.get(i), ranges.get(i)[0], ranges.get(i)[1], entries, bytes));
        }
        CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
        return new Read((System.nanoTime() - t0) / 1e9, entries.get(), bytes.get());
    }

    private static CompletableFuture<Void> readCore(
            StreamLog s, long from, long end, AtomicLong entries, AtomicLong bytes) {
        if (from >= end) {
            return CompletableFuture.completedFuture(null);
        }
        return s.read(from, BATCH, BATCH_BYTES).thenCompose(list -> {
            if (list.isEmpty()) {
                return CompletableFuture.failedFuture(new IllegalStateException("nothing at " + from + " of " + end));
            }
            long next = from;
            for (LogEntry e : list) {
                bytes.addAndGet(e.payload().readableBytes());
                entries.incrementAndGet();
                next = e.endOffset();
                e.payload().release();
            }
            return readCore(s, next, end, entries, bytes);
        });
    }

    /** Opens each ledger and a new cursor at the earliest entry, and reads until the cursor has no more. */
    static Read managedLedger(LakestreamManagedLedgerFactory factory, List<String> names, String cursorName)
            throws Exception {
        List<ManagedCursor> cursors = new ArrayList<>();
        for (String name : names) {
            cursors.add(factory.open(name).openCursor(cursorName, InitialPosition.Earliest));
        }
        AtomicLong entries = new AtomicLong();
        AtomicLong bytes = new AtomicLong();
        long t0 = System.nanoTime();
        List<CompletableFuture<Void>> all = new ArrayList<>();
        for (ManagedCursor c : cursors) {
            CompletableFuture<Void> done = new CompletableFuture<>();
            readCursor(c, entries, bytes, done);
            all.add(done);
        }
        CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
        return new Read((System.nanoTime() - t0) / 1e9, entries.get(), bytes.get());
    }

    private static void readCursor(
            ManagedCursor c, AtomicLong entries, AtomicLong bytes, CompletableFuture<Void> done) {
        if (!c.hasMoreEntries()) {
            done.complete(null);
            return;
        }
        c.asyncReadEntries(
                BATCH,
                new ReadEntriesCallback() {
                    @Override
                    public void readEntriesComplete(List<Entry> list, Object ctx) {
                        for (Entry e : list) {
                            bytes.addAndGet(e.getLength());
                            entries.incrementAndGet();
                            e.release();
                        }
                        if (list.isEmpty()) {
                            done.completeExceptionally(new IllegalStateException(c + " returned nothing"));
                        } else {
                            readCursor(c, entries, bytes, done);
                        }
                    }

                    @Override
                    public void readEntriesFailed(ManagedLedgerException e, Object ctx) {
                        done.completeExceptionally(e);
                    }
                },
                null,
                PositionFactory.LATEST);
    }
}
