package dev.lakestream.core.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lakestream.core.Lakestream;
import dev.lakestream.core.LakestreamConfig;
import dev.lakestream.core.StreamLog;
import dev.lakestream.core.index.IndexKey;
import dev.lakestream.core.metadata.DeleteOptions;
import dev.lakestream.core.metadata.MetadataStore;
import dev.lakestream.core.metadata.MetadataStoreUnavailableException;
import dev.lakestream.core.metadata.PutOptions;
import dev.lakestream.core.metadata.PutResult;
import dev.lakestream.core.metadata.embedded.EmbeddedMetadataStore;
import dev.lakestream.core.metadata.embedded.EmbeddedMetadataStoreConfig;
import dev.lakestream.core.objectstore.fs.FileSystemObjectStore;
import dev.lakestream.core.objectstore.fs.FileSystemObjectStoreConfig;
import dev.lakestream.core.wal.WalWriterConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mockito.Mockito;

/**
 * An index commit whose answer is lost (the metadata store timed out, restarted or became unreachable) must not be
 * reported as failed if it landed, nor land after it was reported failed: either would let a caller that resends
 * failed appends (Pulsar with deduplication on) store an entry twice. And once an append of a stream fails, no
 * append of that stream accepted before the failure may land. Faults are injected with a Mockito spy around the
 * real embedded store.
 */
class WriterCommitOutcomeTest {

    @TempDir
    Path dir;

    private FileSystemObjectStore fsObjects;
    private GatedObjectStore objects;
    private MetadataStore metadata;
    private Lakestream log;
    private StreamLog stream;

    @BeforeEach
    void open() {
        fsObjects = new FileSystemObjectStore(FileSystemObjectStoreConfig.of(dir.resolve("objects")));
        objects = new GatedObjectStore(fsObjects);
        metadata = Mockito.spy(EmbeddedMetadataStore.open(EmbeddedMetadataStoreConfig.of(dir.resolve("metadata"))));
        log = Lakestream.open(
                objects,
                metadata,
                LakestreamConfig.DEFAULT.withWriter(
                        new WalWriterConfig(1 << 20, Duration.ofMillis(20), 8L << 20, WalWriterConfig.WhenFull.WAIT)));
        stream = log.stream(log.catalog().create("t", "s", Map.of()).join());
        // A first commit, so the writer knows where the stream ends.
        assertThat(stream.append(1, LakestreamLogTest.bytes("first")).join().offset())
                .isZero();
    }

    @AfterEach
    void close() {
        objects.releaseAll();
        log.close();
        metadata.close();
        fsObjects.close();
    }

    /** The next index commit of the stream is applied, but its answer is replaced by a timeout. */
    private void nextCommitLandsButReportsTimeout() {
        String prefix = IndexKey.prefix(stream.id());
        AtomicInteger calls = new AtomicInteger();
        Mockito.doAnswer(inv -> {
                    PutOptions options = inv.getArgument(2);
                    @SuppressWarnings("unchecked")
                    CompletableFuture<PutResult> real = (CompletableFuture<PutResult>) inv.callRealMethod();
                    if (inv.getArgument(0).equals(prefix)
                            && options.isSequenceKeyPut()
                            && calls.getAndIncrement() == 0) {
                        return real.thenCompose(applied ->
                                CompletableFuture.<PutResult>failedFuture(new MetadataStoreUnavailableException(
                                        "injected: sequence put timed out (it was applied)")));
                    }
                    return real;
                })
                .when(metadata)
                .put(Mockito.anyString(), Mockito.any(byte[].class), Mockito.any(PutOptions.class));
    }

    @Test
    void aCommitThatLandedAlthoughItsAnswerWasLostSucceeds() {
        nextCommitLandsButReportsTimeout();

        AppendResult late = stream.append(1, LakestreamLogTest.bytes("second")).join();

        assertThat(late.offset()).isEqualTo(1);
        assertThat(stream.endOffset().join()).isEqualTo(2);
        assertThat(stream.read(0, 10, 1 << 20).join()).hasSize(2);
        // Then the stream goes on where that record ended.
        assertThat(stream.append(1, LakestreamLogTest.bytes("third")).join().offset())
                .isEqualTo(2);
    }

    @Test
    void aCommitThatDidNotLandFailsOnlyOnceTheStoreAnswersAgain() {
        String prefix = IndexKey.prefix(stream.id());
        Mockito.doAnswer(inv -> {
                    PutOptions options = inv.getArgument(2);
                    if (inv.getArgument(0).equals(prefix) && options.isSequenceKeyPut()) {
                        return CompletableFuture.<PutResult>failedFuture(
                                new MetadataStoreUnavailableException("injected: store unreachable"));
                    }
                    return inv.callRealMethod();
                })
                .when(metadata)
                .put(Mockito.anyString(), Mockito.any(byte[].class), Mockito.any(PutOptions.class));
        // The store stays unreachable for the writer's first three checks.
        AtomicInteger barriers = new AtomicInteger();
        Mockito.doAnswer(inv -> barriers.incrementAndGet() <= 3
                        ? CompletableFuture.<Boolean>failedFuture(
                                new MetadataStoreUnavailableException("injected: down"))
                        : inv.callRealMethod())
                .when(metadata)
                .delete(Mockito.eq(IndexKey.commitBarrierKey(stream.id())), Mockito.any(DeleteOptions.class));

        CompletableFuture<AppendResult> lost = stream.append(1, LakestreamLogTest.bytes("lost"));

        assertThatThrownBy(lost::join)
                .hasCauseInstanceOf(LogException.class)
                .hasMessageContaining("did not land")
                .hasRootCauseInstanceOf(MetadataStoreUnavailableException.class);
        assertThat(barriers.get()).isEqualTo(4);
        assertThat(stream.endOffset().join()).isEqualTo(1);
    }

    @Test
    void noAppendAcceptedBeforeAFailureLandsAfterIt() {
        // The first object's PUT is held, so the second append goes into the next object; then the first PUT fails.
        GatedObjectStore.Held held = objects.holdNextPut();
        CompletableFuture<AppendResult> failing = stream.append(1, LakestreamLogTest.bytes("a"));
        held.arrived.join();
        CompletableFuture<AppendResult> behind = stream.append(1, LakestreamLogTest.bytes("b"));
        held.fail(new dev.lakestream.core.objectstore.ObjectStoreUnavailableException("injected: PUT refused"));

        assertThatThrownBy(failing::join)
                .hasCauseInstanceOf(dev.lakestream.core.objectstore.ObjectStoreUnavailableException.class);
        assertThatThrownBy(behind::join)
                .hasCauseInstanceOf(LogException.class)
                .hasMessageContaining("accepted before it failed");
        assertThat(stream.endOffset().join()).isEqualTo(1);
        // Appends accepted after the failure are not affected.
        assertThat(stream.append(1, LakestreamLogTest.bytes("c")).join().offset())
                .isEqualTo(1);
    }
}
