package dev.lakestream.core.metadata.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lakestream.core.metadata.GetOptions;
import dev.lakestream.core.metadata.PutOptions;
import dev.lakestream.core.metadata.PutResult;
import dev.lakestream.core.metadata.Record;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The embedded store's group commit: writes that wait together share one WAL fsync, are acknowledged only after
 * it, are not visible to reads before it, and survive closing and reopening the store.
 */
class EmbeddedGroupCommitTest {

    private static final int WRITES = 200;

    @TempDir
    Path dir;

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void writesWaitingTogetherShareOneFsyncAndSurviveAReopen() {
        EmbeddedMetadataStoreConfig config = EmbeddedMetadataStoreConfig.of(dir);
        List<CompletableFuture<PutResult>> puts = new ArrayList<>();
        List<CompletableFuture<PutResult>> commits = new ArrayList<>();
        try (EmbeddedMetadataStore store = EmbeddedMetadataStore.open(config)) {
            store.put("/warm-up", bytes("w"), PutOptions.DEFAULT).join();
            long syncsBefore = store.walSyncs();

            // Hold the writer thread so that every write below is queued before the first is applied.
            CompletableFuture<Void> resume = new CompletableFuture<>();
            store.onWriterThread(resume::join);
            for (int i = 0; i < WRITES; i++) {
                puts.add(store.put("/k/" + i, bytes("v" + i), PutOptions.DEFAULT));
                commits.add(store.put(
                        "/index/s",
                        bytes("r" + i),
                        PutOptions.DEFAULT.partitionKey("s").sequenceKeyDeltas(1)));
            }
            assertThat(puts.get(0)).isNotDone();
            resume.complete(null);
            CompletableFuture.allOf(puts.toArray(CompletableFuture[]::new))
                    .thenCompose(v -> CompletableFuture.allOf(commits.toArray(CompletableFuture[]::new)))
                    .orTimeout(30, TimeUnit.SECONDS)
                    .join();

            assertThat(store.walSyncs() - syncsBefore)
                    .as("one fsync for the %d writes", 2 * WRITES)
                    .isEqualTo(1);
            List<String> keys = commits.stream().map(f -> f.join().key()).toList();
            assertThat(keys)
                    .as("sequence keys in commit order")
                    .isSorted()
                    .doesNotHaveDuplicates()
                    .hasSize(WRITES);
        }

        try (EmbeddedMetadataStore reopened = EmbeddedMetadataStore.open(config)) {
            for (int i = 0; i < WRITES; i++) {
                Optional<Record> r = reopened.get("/k/" + i, GetOptions.DEFAULT).join();
                assertThat(r).as("key /k/%d after reopening", i).isPresent();
                assertThat(new String(r.get().value(), StandardCharsets.UTF_8)).isEqualTo("v" + i);
            }
            assertThat(reopened.rangeScan("/index/s", "/index/t", Optional.of("s"), 0)
                            .join())
                    .hasSize(WRITES);
        }
    }

    @Test
    void aWriteIsNotVisibleToReadsBeforeItsFsync() {
        try (EmbeddedMetadataStore store = EmbeddedMetadataStore.open(EmbeddedMetadataStoreConfig.of(dir))) {
            // The writer thread held while both are queued: the read task runs after the put is applied and
            // before its fsync (which the put queues behind it), while the put is not yet durable.
            CompletableFuture<Void> resume = new CompletableFuture<>();
            store.onWriterThread(resume::join);
            CompletableFuture<PutResult> put = store.put("/k", bytes("v"), PutOptions.DEFAULT);
            CompletableFuture<Optional<Record>> readBetween = new CompletableFuture<>();
            store.onWriterThread(() ->
                    readBetween.complete(store.get("/k", GetOptions.DEFAULT).join()));
            resume.complete(null);
            assertThat(readBetween.orTimeout(30, TimeUnit.SECONDS).join()).isEmpty();
            put.orTimeout(30, TimeUnit.SECONDS).join();
            assertThat(store.get("/k", GetOptions.DEFAULT).join()).isPresent();
        }
    }

    @Test
    void withoutSyncWritesAreAcknowledgedWithoutFsyncs() {
        try (EmbeddedMetadataStore store =
                EmbeddedMetadataStore.open(EmbeddedMetadataStoreConfig.of(dir).withSync(false))) {
            for (int i = 0; i < 10; i++) {
                store.put("/k/" + i, bytes("v"), PutOptions.DEFAULT).join();
            }
            assertThat(store.get("/k/9", GetOptions.DEFAULT).join()).isPresent();
            assertThat(store.walSyncs()).isZero();
        }
    }
}
