package dev.lakestream.pulsar.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lakestream.core.objectstore.ForwardingObjectStore;
import dev.lakestream.core.objectstore.ObjectStore;
import dev.lakestream.core.objectstore.ObjectStoreUnavailableException;
import dev.lakestream.pulsar.ledger.WriteFailedException;
import dev.lakestream.pulsar.ledger.WriteRefusedException;
import dev.lakestream.pulsar.transaction.LakestreamTransactionMetadataStoreProvider;
import io.netty.util.HashedWheelTimer;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.bookkeeper.mledger.ManagedCursor;
import org.apache.bookkeeper.mledger.ManagedLedger;
import org.apache.bookkeeper.mledger.ManagedLedgerException;
import org.apache.bookkeeper.mledger.Position;
import org.apache.pulsar.client.api.transaction.TxnID;
import org.apache.pulsar.common.api.proto.CommandSubscribe.InitialPosition;
import org.apache.pulsar.transaction.coordinator.TransactionCoordinatorID;
import org.apache.pulsar.transaction.coordinator.TransactionMetadataStore;
import org.apache.pulsar.transaction.coordinator.TransactionRecoverTracker;
import org.apache.pulsar.transaction.coordinator.TransactionTimeoutTracker;
import org.apache.pulsar.transaction.coordinator.impl.TxnLogBufferedWriterConfig;
import org.apache.pulsar.transaction.coordinator.proto.TxnStatus;
import org.junit.jupiter.api.Test;

/**
 * A write that fails (the object store refuses every PUT for a while, as S3 does in an outage), then Pulsar's
 * recovery: {@code readyToCreateNewLedger()} and more adds. The adds that failed took no place in the stream, so the
 * next ledger must start at the stream's real end: the adds after the outage succeed (no false "another writer"
 * fence), and every acknowledged entry reads back, before and after a reopen.
 */
class EmbeddedWriteFailureTest extends ManagedLedgerConformanceTest {

    private FailingPuts failing;

    @Override
    protected Stores openStores(Path scratch) {
        Stores real = EmbeddedStores.open(scratch);
        failing = new FailingPuts(real.objects());
        return new Stores(failing, real.metadata(), real.objects());
    }

    @Test
    void afterFailedAddsTheNextLedgerStartsAtTheStreamsEndAndEveryAcknowledgedEntryReads() throws Exception {
        ManagedLedger ml = open();
        ManagedCursor cursor = ml.openCursor("c", InitialPosition.Earliest);
        addEntries(ml, "before", 5);

        failing.refuse = true;
        List<CompletableFuture<Position>> refused = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            refused.add(addAsync(ml, bytes("refused-" + i)));
        }
        for (CompletableFuture<Position> f : refused) {
            assertThatThrownBy(() -> f.get(WAIT.toSeconds(), TimeUnit.SECONDS))
                    .as("an add while PUTs fail")
                    .hasMessageContaining("unavailable")
                    // a "fenced" failure makes Pulsar close the topic and load it again, instead of un-fencing it
                    .hasCauseInstanceOf(WriteFailedException.class)
                    .hasCauseInstanceOf(ManagedLedgerException.ManagedLedgerFencedException.class);
        }
        failing.refuse = false;
        // What Pulsar's topic does once the failed adds are answered.
        ml.readyToCreateNewLedger();
        List<Position> after = addEntries(ml, "after", 5);
        assertStrictlyIncreasing(after);

        List<String> expected = new ArrayList<>(names("before", 0, 5));
        expected.addAll(names("after", 0, 5));
        assertThat(texts(readAll(cursor))).isEqualTo(expected);
        ml.close();
        ManagedLedger reopened = restart().open(name, config());
        ManagedCursor again = reopened.openCursor("again", InitialPosition.Earliest);
        assertThat(texts(readAll(again))).as("after a reopen").isEqualTo(expected);
        addEntries(reopened, "reopened", 2);
    }

    @Test
    void anAddAfterAFailedWriteIsRefusedAsBookKeepersLedgerRefusesItUntilReadyToCreateANewLedger() throws Exception {
        ManagedLedger ml = open();
        addEntries(ml, "before", 2);
        failing.refuse = true;
        CompletableFuture<Position> failed = addAsync(ml, bytes("failed"));
        assertThatThrownBy(() -> failed.get(WAIT.toSeconds(), TimeUnit.SECONDS))
                .hasCauseInstanceOf(WriteFailedException.class);
        failing.refuse = false;

        // Pulsar's transaction log and pending-ack store call readyToCreateNewLedger() on exactly this exception.
        CompletableFuture<Position> refused = addAsync(ml, bytes("refused"));
        assertThatThrownBy(() -> refused.get(WAIT.toSeconds(), TimeUnit.SECONDS))
                .hasCauseInstanceOf(WriteRefusedException.class)
                .hasCauseInstanceOf(ManagedLedgerException.ManagedLedgerAlreadyClosedException.class)
                .hasMessageContaining(ml.getName());
        ml.readyToCreateNewLedger();
        addEntries(ml, "after", 2);
        assertThat(texts(readAll(ml.openCursor("c", InitialPosition.Earliest))))
                .isEqualTo(List.of("before-0", "before-1", "after-0", "after-1"));
    }

    /**
     * Pulsar's transaction coordinator on this managed ledger (the store the broker opens through
     * {@link LakestreamTransactionMetadataStoreProvider}): a write of its log fails while S3 is down; once S3 is back it
     * writes again. It did not before: its log refused every later write with a "fenced" failure, on which Pulsar's
     * log does not call {@code readyToCreateNewLedger()}, so the coordinator could neither end nor time out a
     * transaction, and a transaction left open holds back every later message of its topics (the nemesis found it).
     */
    @Test
    void theTransactionCoordinatorWritesItsLogAgainAfterAFailedWrite() throws Exception {
        HashedWheelTimer timer = new HashedWheelTimer();
        TransactionMetadataStore coordinator = new LakestreamTransactionMetadataStoreProvider()
                .openStore(
                        new TransactionCoordinatorID(0),
                        factory,
                        config(),
                        new NoTimeouts(),
                        new NoRecovery(),
                        0,
                        new TxnLogBufferedWriterConfig(),
                        timer)
                .get(WAIT.toSeconds(), TimeUnit.SECONDS);
        try {
            TxnID open = coordinator.newTransaction(60_000, "test").get(WAIT.toSeconds(), TimeUnit.SECONDS);

            failing.refuse = true;
            assertThatThrownBy(() -> coordinator
                            .updateTxnStatus(open, TxnStatus.COMMITTING, TxnStatus.OPEN, false)
                            .get(WAIT.toSeconds(), TimeUnit.SECONDS))
                    .as("a log write while S3 refuses PUTs")
                    .isInstanceOf(ExecutionException.class);
            failing.refuse = false;

            // The coordinator retries ending a transaction (every 100 ms); three tries are plenty once S3 is back.
            boolean committing = false;
            for (int attempt = 0; attempt < 3 && !committing; attempt++) {
                try {
                    coordinator
                            .updateTxnStatus(open, TxnStatus.COMMITTING, TxnStatus.OPEN, false)
                            .get(WAIT.toSeconds(), TimeUnit.SECONDS);
                    committing = true;
                } catch (ExecutionException e) {
                    // the first write after the failure is refused, and makes the log ready to write again
                }
            }
            assertThat(committing)
                    .as("the coordinator's log wrote again after S3 came back")
                    .isTrue();
            coordinator
                    .updateTxnStatus(open, TxnStatus.COMMITTED, TxnStatus.COMMITTING, false)
                    .get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(coordinator.newTransaction(60_000, "test").get(WAIT.toSeconds(), TimeUnit.SECONDS))
                    .isNotNull();
        } finally {
            coordinator.closeAsync().get(WAIT.toSeconds(), TimeUnit.SECONDS);
            timer.stop();
        }
    }

    private static final class NoTimeouts implements TransactionTimeoutTracker {
        @Override
        public void addTransaction(long sequenceId, long timeout) {}

        @Override
        public void replayAddTransaction(long sequenceId, long timeout) {}

        @Override
        public void start() {}

        @Override
        public void close() {}
    }

    private static final class NoRecovery implements TransactionRecoverTracker {
        @Override
        public void updateTransactionStatus(long sequenceId, TxnStatus status) {}

        @Override
        public void handleOpenStatusTransaction(long sequenceId, long timeout) {}

        @Override
        public void appendOpenTransactionToTimeoutTracker() {}

        @Override
        public void handleCommittingAndAbortingTransaction() {}
    }

    @Test
    void aLedgerOpenedWhileItsCloseWaitsForAnAppendIsANewOneStartingAfterThatAppend() throws Exception {
        ManagedLedger ml = open();
        addEntries(ml, "before", 3);
        // An add whose PUT is held: the close below must wait for it (Pulsar closes a topic after a failed write
        // and a producer coming back opens it again, possibly before the close is over).
        CompletableFuture<Void> release = new CompletableFuture<>();
        failing.hold = release;
        CompletableFuture<Position> held = addAsync(ml, bytes("held"));
        CompletableFuture<Void> closed = closeAsync(ml);
        CompletableFuture<ManagedLedger> reopened = CompletableFuture.supplyAsync(() -> {
            try {
                return open();
            } catch (Exception e) {
                throw new java.util.concurrent.CompletionException(e);
            }
        });
        try {
            Thread.sleep(QUIET.toMillis());
            assertThat(closed).as("the close, waiting for the held append").isNotDone();
            assertThat(reopened).as("the open, waiting for the close").isNotDone();
        } finally {
            // also when an assertion failed, or the held append would keep the fixture's shutdown waiting
            failing.hold = null;
            release.complete(null);
        }
        held.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        ManagedLedger again = reopened.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        // The close's callback runs on the ledger's executor and may be answered just after the open it let through.
        assertThat(closed).as("the close").succeedsWithin(WAIT);
        assertThat(again).as("a new instance, not the closed one").isNotSameAs(ml);
        addEntries(again, "after", 3);
        List<String> expected = new ArrayList<>(names("before", 0, 3));
        expected.add("held");
        expected.addAll(names("after", 0, 3));
        assertThat(texts(readAll(again.openCursor("c2", InitialPosition.Earliest))))
                .isEqualTo(expected);
    }

    /**
     * Forwards to a real store; while {@link #refuse} is set every PUT fails as an unreachable S3 does, while
     * {@link #hold} is set every PUT waits for it.
     */
    static final class FailingPuts extends ForwardingObjectStore {
        volatile boolean refuse;
        /** While set, PUTs wait for it before going to the store. */
        volatile CompletableFuture<Void> hold;

        FailingPuts(ObjectStore store) {
            super("failing-puts", store);
        }

        private CompletableFuture<Void> refused(String key) {
            return CompletableFuture.failedFuture(
                    new ObjectStoreUnavailableException("test: object store unavailable, put " + key + " refused"));
        }

        @Override
        public CompletableFuture<Void> put(String key, ByteBuffer data) {
            CompletableFuture<Void> h = hold;
            if (h != null) {
                return h.thenCompose(v -> super.put(key, data));
            }
            return refuse ? refused(key) : super.put(key, data);
        }

        @Override
        public CompletableFuture<Void> putIfAbsent(String key, ByteBuffer data) {
            return refuse ? refused(key) : super.putIfAbsent(key, data);
        }
    }
}
