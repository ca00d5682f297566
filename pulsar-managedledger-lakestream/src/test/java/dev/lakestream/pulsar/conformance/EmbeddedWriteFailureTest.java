package dev.lakestream.pulsar.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lakestream.core.objectstore.ObjectInfo;
import dev.lakestream.core.objectstore.ObjectListing;
import dev.lakestream.core.objectstore.ObjectStore;
import dev.lakestream.core.objectstore.ObjectStoreUnavailableException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.bookkeeper.mledger.ManagedCursor;
import org.apache.bookkeeper.mledger.ManagedLedger;
import org.apache.bookkeeper.mledger.Position;
import org.apache.pulsar.common.api.proto.CommandSubscribe.InitialPosition;
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
                    .hasMessageContaining("unavailable");
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

    /** Forwards to a real store; while {@link #refuse} is set every PUT fails as an unreachable S3 does. */
    static final class FailingPuts implements ObjectStore {
        private final ObjectStore store;
        volatile boolean refuse;

        FailingPuts(ObjectStore store) {
            this.store = store;
        }

        private CompletableFuture<Void> refused(String key) {
            return CompletableFuture.failedFuture(
                    new ObjectStoreUnavailableException("test: object store unavailable, put " + key + " refused"));
        }

        @Override
        public CompletableFuture<Void> put(String key, ByteBuffer data) {
            return refuse ? refused(key) : store.put(key, data);
        }

        @Override
        public CompletableFuture<Void> putIfAbsent(String key, ByteBuffer data) {
            return refuse ? refused(key) : store.putIfAbsent(key, data);
        }

        @Override
        public CompletableFuture<ByteBuffer> get(String key) {
            return store.get(key);
        }

        @Override
        public CompletableFuture<ByteBuffer> get(String key, long offset, long length) {
            return store.get(key, offset, length);
        }

        @Override
        public CompletableFuture<Optional<ObjectInfo>> head(String key) {
            return store.head(key);
        }

        @Override
        public CompletableFuture<ObjectListing> list(String prefix, String continuation, int maxKeys) {
            return store.list(prefix, continuation, maxKeys);
        }

        @Override
        public CompletableFuture<Void> delete(Collection<String> keys) {
            return store.delete(keys);
        }

        @Override
        public String location() {
            return "failing-puts:" + store.location();
        }

        @Override
        public void close() {
            // the real store is closed by the fixture
        }
    }
}
