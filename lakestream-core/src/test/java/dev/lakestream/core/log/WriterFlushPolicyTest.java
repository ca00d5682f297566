package dev.lakestream.core.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lakestream.core.Lakestream;
import dev.lakestream.core.LakestreamConfig;
import dev.lakestream.core.StreamLog;
import dev.lakestream.core.metadata.MetadataStore;
import dev.lakestream.core.metadata.embedded.EmbeddedMetadataStore;
import dev.lakestream.core.metadata.embedded.EmbeddedMetadataStoreConfig;
import dev.lakestream.core.objectstore.ObjectStore;
import dev.lakestream.core.objectstore.fs.FileSystemObjectStore;
import dev.lakestream.core.objectstore.fs.FileSystemObjectStoreConfig;
import dev.lakestream.core.wal.WalWriterConfig;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The adaptive flush policy (group commit) on the embedded stores, judged by the PUTs the writer sends (a
 * recording decorator that can also hold a PUT back, as a slow store would) and the order of events, never by
 * how long anything took. The flush deadline is set far beyond the tests' timeouts wherever an append must
 * not depend on it, so an append that waited for it would fail the test instead of passing slowly.
 */
class WriterFlushPolicyTest {

    private static final Duration NEVER = Duration.ofMinutes(10);
    private static final int ENTRY_BYTES = 100;

    @TempDir
    Path dir;

    private ObjectStore fs;
    private GatedObjectStore objects;
    private MetadataStore metadata;
    private Lakestream log;

    @BeforeEach
    void openStores() {
        fs = new FileSystemObjectStore(FileSystemObjectStoreConfig.of(dir.resolve("objects")));
        objects = new GatedObjectStore(fs);
        metadata = EmbeddedMetadataStore.open(EmbeddedMetadataStoreConfig.of(dir.resolve("metadata")));
    }

    @AfterEach
    void closeAll() {
        objects.releaseAll();
        if (log != null) {
            log.close();
        }
        metadata.close();
        fs.close();
    }

    private void openLog(WalWriterConfig writer) {
        log = Lakestream.open(objects, metadata, LakestreamConfig.DEFAULT.withWriter(writer));
    }

    private static WalWriterConfig adaptive(Duration flushDelay) {
        return new WalWriterConfig(1 << 20, flushDelay, 64L << 20, WalWriterConfig.WhenFull.WAIT);
    }

    private StreamLog stream(String name) {
        return log.stream(log.catalog().create("t", name, Map.of()).join());
    }

    private static ByteBuf entry() {
        return Unpooled.wrappedBuffer(new byte[ENTRY_BYTES]);
    }

    private static <T> T await(CompletableFuture<T> f) {
        return f.orTimeout(30, TimeUnit.SECONDS).join();
    }

    @Test
    void anIdleWriterStoresEachAppendAtOnceWithoutWaitingForTheDeadline() {
        openLog(adaptive(NEVER));
        StreamLog a = stream("a");

        for (int i = 0; i < 5; i++) {
            assertThat(await(a.append(1, entry())).offset()).isEqualTo(i);
            assertThat(objects.puts()).hasSize(i + 1);
        }
    }

    @Test
    void appendsWhileAPutIsInFlightGoIntoOneNextObject() throws Exception {
        // No linger and no practical rate cap: only the PUT in flight keeps the next batch open.
        openLog(adaptive(NEVER).withLinger(Duration.ZERO).withMaxPutsPerSecond(1_000_000));
        List<StreamLog> streams = new ArrayList<>();
        for (int s = 0; s < 5; s++) {
            streams.add(stream("s" + s));
        }
        GatedObjectStore.Held slow = objects.holdNextPut();
        CompletableFuture<AppendResult> first = streams.get(0).append(1, entry());
        slow.arrived.get(30, TimeUnit.SECONDS);

        List<List<CompletableFuture<AppendResult>>> appended = new ArrayList<>();
        for (int s = 0; s < streams.size(); s++) {
            appended.add(new ArrayList<>());
        }
        for (int i = 0; i < 10; i++) {
            for (int s = 0; s < streams.size(); s++) {
                appended.get(s).add(streams.get(s).append(1, entry()));
            }
        }
        assertThat(first).isNotDone();
        slow.release();

        await(first);
        for (int s = 0; s < streams.size(); s++) {
            long expected = s == 0 ? 1 : 0;
            for (CompletableFuture<AppendResult> f : appended.get(s)) {
                assertThat(await(f).offset())
                        .as("stream %d keeps append order", s)
                        .isEqualTo(expected++);
            }
        }
        assertThat(objects.puts()).hasSize(2);
        assertThat(objects.puts().get(1).bytes()).isGreaterThanOrEqualTo(50 * ENTRY_BYTES);
    }

    @Test
    void aSlowPutHoldsTheNextBatchOpenPastItsLingerAndItIsStoredOnceThePutCompletes() throws Exception {
        openLog(adaptive(NEVER).withLinger(Duration.ofMillis(1)));
        StreamLog a = stream("a");
        StreamLog b = stream("b");
        GatedObjectStore.Held slow = objects.holdNextPut();
        CompletableFuture<AppendResult> a1 = a.append(1, entry());
        slow.arrived.get(30, TimeUnit.SECONDS);

        CompletableFuture<AppendResult> b1 = b.append(1, entry());
        Thread.sleep(100); // 100 times the linger: a batch flushed on its linger alone would be PUT by now
        CompletableFuture<AppendResult> b2 = b.append(1, entry());
        assertThat(objects.puts())
                .as("nothing PUT while the first PUT is in flight")
                .hasSize(1);
        assertThat(b1).isNotDone();

        slow.release();
        await(a1);
        assertThat(await(b1).offset()).isZero();
        assertThat(await(b2).offset()).isEqualTo(1);
        assertThat(objects.puts()).hasSize(2);
    }

    @Test
    void theFlushDelayBoundsHowLongASlowPutHoldsTheNextBatch() throws Exception {
        openLog(adaptive(Duration.ofMillis(200)));
        StreamLog a = stream("a");
        StreamLog b = stream("b");
        GatedObjectStore.Held slow = objects.holdNextPut();
        CompletableFuture<AppendResult> a1 = a.append(1, entry());
        slow.arrived.get(30, TimeUnit.SECONDS);

        CompletableFuture<AppendResult> b1 = b.append(1, entry());
        assertThat(await(b1).offset()).isZero();
        assertThat(a1).as("the first object is still held back").isNotDone();
        assertThat(objects.puts()).hasSize(2);

        slow.release();
        assertThat(await(a1).offset()).isZero();
    }

    @Test
    void pastThePutRateCapAppendsAreBatched() {
        openLog(adaptive(NEVER).withLinger(Duration.ZERO).withMaxPutsPerSecond(1));
        StreamLog a = stream("a");
        await(a.append(1, entry()));
        assertThat(objects.puts()).hasSize(1);

        // No PUT in flight and no linger: without the cap the first of these would be PUT alone at once.
        List<CompletableFuture<AppendResult>> next = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            next.add(a.append(1, entry()));
        }
        for (int i = 0; i < next.size(); i++) {
            assertThat(await(next.get(i)).offset()).isEqualTo(i + 1);
        }
        assertThat(objects.puts()).as("the four appends share one object").hasSize(2);
        assertThat(objects.puts().get(1).bytes()).isGreaterThanOrEqualTo(4 * ENTRY_BYTES);
    }

    @Test
    void theDeadlinePolicyWaitsForTheDeadlineEvenWhenIdle() throws Exception {
        openLog(adaptive(NEVER).withFlushPolicy(WalWriterConfig.FlushPolicy.DEADLINE));
        StreamLog a = stream("a");
        CompletableFuture<AppendResult> a1 = a.append(1, entry());
        Thread.sleep(100); // far past the adaptive policy's linger
        assertThat(objects.puts()).isEmpty();
        assertThat(a1).isNotDone();
        log.close(); // flushes what is buffered
        log = null;
        assertThat(await(a1).offset()).isZero();
        assertThat(objects.puts()).hasSize(1);
    }
}
