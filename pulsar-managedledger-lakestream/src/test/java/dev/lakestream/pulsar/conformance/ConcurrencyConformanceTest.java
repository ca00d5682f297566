package dev.lakestream.pulsar.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.bookkeeper.mledger.AsyncCallbacks;
import org.apache.bookkeeper.mledger.Entry;
import org.apache.bookkeeper.mledger.ManagedCursor;
import org.apache.bookkeeper.mledger.ManagedLedger;
import org.apache.bookkeeper.mledger.ManagedLedgerException;
import org.apache.bookkeeper.mledger.Position;
import org.apache.pulsar.common.api.proto.CommandSubscribe.InitialPosition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Many threads at once: adds, acknowledgements, readers following a writer, cursor creation. */
public abstract class ConcurrencyConformanceTest extends ManagedLedgerConformanceTest {

    private ExecutorService pool;

    @BeforeEach
    void startPool() {
        pool = Executors.newFixedThreadPool(8);
    }

    @AfterEach
    void stopPool() throws Exception {
        pool.shutdownNow();
        pool.awaitTermination(10, TimeUnit.SECONDS);
    }

    private void runAll(List<java.util.concurrent.Callable<Void>> tasks) throws Exception {
        List<Future<Void>> fs = new ArrayList<>();
        for (var t : tasks) {
            fs.add(pool.submit(t));
        }
        for (Future<Void> f : fs) {
            f.get(WAIT.toMillis() * 2, TimeUnit.MILLISECONDS);
        }
    }

    @Test
    void concurrentAddsFromManyThreadsAllCompleteInPositionOrder() throws Exception {
        ManagedLedger ml = open(config().setMaxEntriesPerLedger(100));
        int threads = 8;
        int perThread = 150;
        int total = threads * perThread;
        List<Position> callbackOrder = Collections.synchronizedList(new ArrayList<>());
        Map<String, Position> byPayload = new ConcurrentHashMap<>();
        CountDownLatch done = new CountDownLatch(total);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CyclicBarrier start = new CyclicBarrier(threads);
        List<java.util.concurrent.Callable<Void>> tasks = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int thread = t;
            tasks.add(() -> {
                start.await();
                for (int i = 0; i < perThread; i++) {
                    String payload = "t" + thread + "-" + i;
                    ml.asyncAddEntry(
                            bytes(payload),
                            new AsyncCallbacks.AddEntryCallback() {
                                @Override
                                public void addComplete(Position position, ByteBuf entryData, Object ctx) {
                                    callbackOrder.add(position);
                                    byPayload.put((String) ctx, position);
                                    done.countDown();
                                }

                                @Override
                                public void addFailed(ManagedLedgerException exception, Object ctx) {
                                    failure.compareAndSet(null, exception);
                                    done.countDown();
                                }
                            },
                            payload);
                }
                return null;
            });
        }
        runAll(tasks);
        assertThat(done.await(WAIT.toMillis() * 2, TimeUnit.MILLISECONDS))
                .as("all callbacks ran")
                .isTrue();
        assertThat(failure.get()).isNull();

        assertThat(new HashSet<>(norm(callbackOrder)))
                .as("no duplicate positions")
                .hasSize(total);
        assertStrictlyIncreasing(new ArrayList<>(callbackOrder));
        for (int t = 0; t < threads; t++) {
            List<Position> mine = new ArrayList<>();
            for (int i = 0; i < perThread; i++) {
                mine.add(byPayload.get("t" + t + "-" + i));
            }
            assertStrictlyIncreasing(mine); // each thread's adds keep its call order
        }
        assertThat(ml.getNumberOfEntries()).isEqualTo(total);
        assertPos(ml.getLastConfirmedEntry(), callbackOrder.get(total - 1));

        ManagedCursor c = ml.openCursor("c", InitialPosition.Earliest);
        List<Read> reads = readAll(c);
        assertThat(reads).hasSize(total);
        for (Read r : reads) {
            assertPos(r.position(), byPayload.get(r.text()));
        }
    }

    @Test
    void concurrentIndividualAcksFromManyThreads() throws Exception {
        ManagedLedger ml = open(config().setMaxEntriesPerLedger(50));
        ManagedCursor c = ml.openCursor("c", InitialPosition.Earliest);
        int n = 400;
        List<CompletableFuture<Position>> adds = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            adds.add(addAsync(ml, bytes("e-" + i)));
        }
        List<Position> ps = new ArrayList<>();
        for (CompletableFuture<Position> f : adds) {
            ps.add(await(f));
        }

        int threads = 4;
        CyclicBarrier start = new CyclicBarrier(threads);
        List<java.util.concurrent.Callable<Void>> tasks = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int thread = t;
            tasks.add(() -> {
                start.await();
                List<CompletableFuture<Void>> acks = new ArrayList<>();
                for (int i = thread; i < n; i += threads) {
                    acks.add(deleteAsync(c, List.of(ps.get(i))));
                }
                for (CompletableFuture<Void> a : acks) {
                    await(a);
                }
                return null;
            });
        }
        runAll(tasks);

        assertMarkDelete(c, ps.get(n - 1));
        assertThat(c.getNumberOfEntriesInBacklog(true)).isZero();
        assertThat(c.getNumberOfEntriesInBacklog(false)).isZero();
        assertThat(c.getTotalNonContiguousDeletedMessagesRange()).isZero();
    }

    @Test
    void concurrentMarkDeletesEndAtTheNewestPosition() throws Exception {
        ManagedLedger ml = open();
        ManagedCursor c = ml.openCursor("c", InitialPosition.Earliest);
        List<Position> ps = addEntries(ml, "e", 200);
        int threads = 4;
        CyclicBarrier start = new CyclicBarrier(threads);
        List<java.util.concurrent.Callable<Void>> tasks = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int thread = t;
            tasks.add(() -> {
                start.await();
                List<CompletableFuture<Void>> mds = new ArrayList<>();
                for (int i = thread; i < ps.size(); i += threads) {
                    mds.add(markDeleteAsync(c, ps.get(i), Map.of()));
                }
                for (CompletableFuture<Void> f : mds) {
                    try {
                        await(f);
                    } catch (ManagedLedgerException e) {
                        // a mark-delete behind another thread's newer one is rejected: fine
                    }
                }
                return null;
            });
        }
        runAll(tasks);
        assertMarkDelete(c, ps.get(199));
        assertThat(c.getNumberOfEntriesInBacklog(true)).isZero();
    }

    @Test
    void readersFollowAConcurrentWriter() throws Exception {
        ManagedLedger ml = open(config().setMaxEntriesPerLedger(40));
        int n = 300;
        int readers = 3;
        List<ManagedCursor> cursors = new ArrayList<>();
        for (int r = 0; r < readers; r++) {
            cursors.add(ml.openCursor("reader-" + r));
        }
        List<java.util.concurrent.Callable<Void>> tasks = new ArrayList<>();
        List<List<String>> seen = new ArrayList<>();
        for (int r = 0; r < readers; r++) {
            ManagedCursor c = cursors.get(r);
            List<String> mine = Collections.synchronizedList(new ArrayList<>());
            seen.add(mine);
            tasks.add(() -> {
                while (mine.size() < n) {
                    List<Entry> entries = await(readOrWaitAsync(c, 17));
                    List<Read> reads = drain(entries);
                    if (reads.isEmpty()) {
                        continue;
                    }
                    mine.addAll(texts(reads));
                    c.markDelete(reads.get(reads.size() - 1).position());
                }
                return null;
            });
        }
        tasks.add(() -> {
            List<CompletableFuture<Position>> asyncAdds = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                if (i % 3 == 0) {
                    ml.addEntry(bytes("w-" + i));
                } else {
                    asyncAdds.add(addAsync(ml, bytes("w-" + i)));
                }
            }
            for (CompletableFuture<Position> add : asyncAdds) {
                await(add); // a failed add fails the test here, not as a reader waiting forever
            }
            return null;
        });
        runAll(tasks);

        for (int r = 0; r < readers; r++) {
            assertThat(seen.get(r)).as("reader %s", r).isEqualTo(names("w", 0, n));
            assertThat(cursors.get(r).getNumberOfEntriesInBacklog(true)).isZero();
        }
    }

    @Test
    void concurrentCursorCreationWhileAdding() throws Exception {
        ManagedLedger ml = open();
        int cursorsToOpen = 16;
        CyclicBarrier start = new CyclicBarrier(5);
        Set<String> opened = ConcurrentHashMap.newKeySet();
        List<java.util.concurrent.Callable<Void>> tasks = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            int thread = t;
            tasks.add(() -> {
                start.await();
                for (int i = 0; i < cursorsToOpen / 4; i++) {
                    String cursorName = "c-" + thread + "-" + i;
                    ManagedCursor c = ml.openCursor(cursorName, InitialPosition.Earliest);
                    opened.add(c.getName());
                }
                return null;
            });
        }
        tasks.add(() -> {
            start.await();
            for (int i = 0; i < 100; i++) {
                ml.addEntry(bytes("e-" + i));
            }
            return null;
        });
        runAll(tasks);

        assertThat(opened).hasSize(cursorsToOpen);
        Set<String> listed = new HashSet<>();
        for (ManagedCursor c : ml.getCursors()) {
            listed.add(c.getName());
        }
        assertThat(listed).containsAll(opened);
        for (ManagedCursor c : ml.getCursors()) {
            assertThat(c.getNumberOfEntriesInBacklog(true)).as(c.getName()).isEqualTo(100);
        }
    }
}
