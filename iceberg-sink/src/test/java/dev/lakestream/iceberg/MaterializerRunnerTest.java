package dev.lakestream.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lakestream.core.StreamLog;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The runner keeps a topic's table fresh while entries arrive, and commits what is pending on close. */
class MaterializerRunnerTest {

    @TempDir
    java.nio.file.Path dir;

    @Test
    void rowsBecomeVisibleWithinTheCommitIntervalWhileTheTopicIsWritten() throws Exception {
        try (Fixture f = new Fixture(dir)) {
            TopicRef topic = TopicRef.parse("persistent://public/default/live");
            StreamLog stream = f.stream(topic);
            var catalog = f.catalog();
            MaterializerConfig config = MaterializerConfig.DEFAULT.withCommitInterval(Duration.ofMillis(300));
            TopicMaterializer m = f.materializer(topic, stream, catalog, config, DeadLetters.log());
            MaterializerRunner runner = new MaterializerRunner(m, Duration.ofMillis(50)).start();
            for (int round = 0; round < 3; round++) {
                Fixture.append(stream, ExactlyOnceTest.entries(round * 5, 5));
                long want = (round + 1) * 5L;
                awaitUntil(() -> m.status().committedOffset() >= want);
                assertThat(m.status().committedOffset()).isEqualTo(want);
                ExactlyOnceTest.assertExactly(catalog.loadTable(TableNames.of(topic)), (int) want);
            }
            runner.close();
            assertThat(m.status().state()).isEqualTo(MaterializerStatus.State.CLOSED);
        }
    }

    @Test
    void closeCommitsWhatIsWrittenButNotYetCommitted() throws Exception {
        try (Fixture f = new Fixture(dir)) {
            TopicRef topic = TopicRef.parse("persistent://public/default/closing");
            StreamLog stream = f.stream(topic);
            var catalog = f.catalog();
            MaterializerConfig config = MaterializerConfig.DEFAULT.withCommitInterval(Duration.ofHours(1));
            TopicMaterializer m = f.materializer(topic, stream, catalog, config, DeadLetters.log());
            MaterializerRunner runner = new MaterializerRunner(m, Duration.ofMillis(50)).start();
            Fixture.append(stream, ExactlyOnceTest.entries(0, 4));
            awaitUntil(() -> m.status().nextOffset() >= 4);
            assertThat(m.status().nextOffset()).isEqualTo(4);
            assertThat(m.status().committedOffset()).isEqualTo(-1);
            assertThat(m.status().lagEntries()).isEqualTo(4);
            assertThat(m.status().oldestUncommittedMillis()).isPositive();
            assertThat(m.status().lagMillis(m.status().oldestUncommittedMillis() + 1500)).isEqualTo(1500);
            runner.close();
            assertThat(m.status().committedOffset()).isEqualTo(4);
            assertThat(m.status().lagEntries()).isZero();
            assertThat(m.status().lagMillis(System.currentTimeMillis())).isZero();
            ExactlyOnceTest.assertExactly(catalog.loadTable(TableNames.of(topic)), 4);
        }
    }

    /** Polls the runner's published status (it runs on its own thread) for at most 30 s; the caller asserts after. */
    private static void awaitUntil(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!condition.getAsBoolean() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
    }
}
