package dev.lakestream.core.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lakestream.core.Lakestream;
import dev.lakestream.core.LakestreamConfig;
import dev.lakestream.core.StreamLog;
import dev.lakestream.core.catalog.StreamInfo;
import dev.lakestream.core.metadata.MetadataStore;
import dev.lakestream.core.metadata.MetadataStoreUnavailableException;
import dev.lakestream.core.metadata.PutOptions;
import dev.lakestream.core.metadata.PutResult;
import dev.lakestream.core.metadata.embedded.EmbeddedMetadataStore;
import dev.lakestream.core.metadata.embedded.EmbeddedMetadataStoreConfig;
import dev.lakestream.core.objectstore.ObjectBody;
import dev.lakestream.core.objectstore.ObjectStore;
import dev.lakestream.core.objectstore.ObjectStoreUnavailableException;
import dev.lakestream.core.objectstore.fs.FileSystemObjectStore;
import dev.lakestream.core.objectstore.fs.FileSystemObjectStoreConfig;
import dev.lakestream.core.wal.WalWriterConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mockito.Mockito;

/**
 * Faults injected into the writer's two stores (Mockito spies around the real embedded stores): a failed
 * PUT fails every append of the object and leaves nothing visible; an index commit that failed (and did not land)
 * fails only the appends of that stream.
 */
class WriterFaultTest {

    @TempDir
    Path dir;

    private ObjectStore objects;
    private MetadataStore metadata;
    private Lakestream log;

    private static final LakestreamConfig ONE_BATCH = LakestreamConfig.DEFAULT.withWriter(
            new WalWriterConfig(1 << 20, Duration.ofMillis(50), 8L << 20, WalWriterConfig.WhenFull.WAIT));

    @BeforeEach
    void open() {
        objects = Mockito.spy(new FileSystemObjectStore(FileSystemObjectStoreConfig.of(dir.resolve("objects"))));
        metadata = Mockito.spy(EmbeddedMetadataStore.open(EmbeddedMetadataStoreConfig.of(dir.resolve("metadata"))));
        log = Lakestream.open(objects, metadata, ONE_BATCH);
    }

    @AfterEach
    void close() {
        log.close();
        metadata.close();
        objects.close();
    }

    @Test
    void aFailedPutFailsTheWholeObjectAndNothingBecomesVisible() {
        StreamLog a = log.stream(log.catalog().create("t", "a", Map.of()).join());
        StreamLog b = log.stream(log.catalog().create("t", "b", Map.of()).join());
        AtomicBoolean fail = new AtomicBoolean(true);
        Mockito.doAnswer(inv -> fail.get()
                        ? CompletableFuture.failedFuture(new ObjectStoreUnavailableException("injected: PUT timed out"))
                        : inv.callRealMethod())
                .when(objects)
                .put(Mockito.anyString(), Mockito.any(ObjectBody.class));

        CompletableFuture<AppendResult> fa = a.append(1, LakestreamLogTest.bytes("a"));
        CompletableFuture<AppendResult> fb = b.append(1, LakestreamLogTest.bytes("b"));
        assertThatThrownBy(fa::join).hasCauseInstanceOf(ObjectStoreUnavailableException.class);
        assertThatThrownBy(fb::join).hasCauseInstanceOf(ObjectStoreUnavailableException.class);
        assertThat(a.endOffset().join()).isZero();
        assertThat(a.read(0, 10, 1 << 20).join()).isEmpty();

        fail.set(false);
        assertThat(a.append(1, LakestreamLogTest.bytes("a2")).join().offset()).isZero();
    }

    @Test
    void aFailedIndexCommitFailsOnlyThatStream() {
        StreamInfo good = log.catalog().create("t", "good", Map.of()).join();
        StreamInfo bad = log.catalog().create("t", "bad", Map.of()).join();
        String badPrefix = dev.lakestream.core.index.IndexKey.prefix(bad.id());
        Mockito.doAnswer(inv -> {
                    PutOptions options = inv.getArgument(2);
                    if (inv.getArgument(0).equals(badPrefix) && options.isSequenceKeyPut()) {
                        return CompletableFuture.<PutResult>failedFuture(
                                new MetadataStoreUnavailableException("injected: commit lost"));
                    }
                    return inv.callRealMethod();
                })
                .when(metadata)
                .put(Mockito.anyString(), Mockito.any(byte[].class), Mockito.any(PutOptions.class));

        CompletableFuture<AppendResult> ok = log.stream(good).append(1, LakestreamLogTest.bytes("ok"));
        CompletableFuture<AppendResult> lost = log.stream(bad).append(1, LakestreamLogTest.bytes("lost"));
        assertThat(ok.join().offset()).isZero();
        assertThatThrownBy(lost::join)
                .hasMessageContaining("did not land")
                .hasRootCauseInstanceOf(MetadataStoreUnavailableException.class);
        assertThat(log.stream(bad).endOffset().join()).isZero();
        assertThat(log.stream(good).read(0, 10, 1 << 20).join()).hasSize(1);
    }
}
