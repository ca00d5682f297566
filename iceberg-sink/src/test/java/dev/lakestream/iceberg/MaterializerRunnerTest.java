package dev.lakestream.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

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
                await("committed offset " + want)
                        .atMost(Duration.ofSeconds(30))
                        .until(() -> m.status().committedOffset() >= want);
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
            await("next offset 4")
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> m.status().nextOffset() >= 4);
            assertThat(m.status().nextOffset()).isEqualTo(4);
            assertThat(m.status().committedOffset()).isEqualTo(-1);
            assertThat(m.status().lagEntries()).isEqualTo(4);
            assertThat(m.status().oldestUncommittedMillis()).isPositive();
            assertThat(m.status().lagMillis(m.status().oldestUncommittedMillis() + 1500))
                    .isEqualTo(1500);
            runner.close();
            assertThat(m.status().committedOffset()).isEqualTo(4);
            assertThat(m.status().lagEntries()).isZero();
            assertThat(m.status().lagMillis(System.currentTimeMillis())).isZero();
            ExactlyOnceTest.assertExactly(catalog.loadTable(TableNames.of(topic)), 4);
        }
    }

    @Test
    void aStepThatDoesNotReturnIsReportedOnceAndTheTopicGoesOnWhenItReturns() throws Exception {
        try (Fixture f = new Fixture(dir)) {
            TopicRef topic = TopicRef.parse("persistent://public/default/stuck");
            StreamLog stream = f.stream(topic);
            FaultyJdbcCatalog catalog = f.catalog();
            MaterializerConfig config = MaterializerConfig.DEFAULT.withCommitInterval(Duration.ofMillis(100));
            TopicMaterializer m = f.materializer(topic, stream, catalog, config, DeadLetters.log());
            MaterializerRunner runner = new MaterializerRunner(m, Duration.ofMillis(20)).start();
            Fixture.append(stream, ExactlyOnceTest.entries(0, 3));
            await("committed offset 3")
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> m.status().committedOffset() == 3);
            // The next commit's table read waits, as a call to a store that never answers would.
            java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
            java.util.concurrent.CountDownLatch held = new java.util.concurrent.CountDownLatch(1);
            catalog.beforeRefresh(1, () -> {
                held.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            Fixture.append(stream, ExactlyOnceTest.entries(3, 2));
            try {
                assertThat(held.await(30, java.util.concurrent.TimeUnit.SECONDS))
                        .as("a commit reached the held table read")
                        .isTrue();
                assertThat(runner.warnIfStepRunsPast(Duration.ofHours(1)))
                        .as("a step not yet past the limit")
                        .isFalse();
                await("the held step, reported once past 50 ms")
                        .atMost(Duration.ofSeconds(10))
                        .until(() -> runner.warnIfStepRunsPast(Duration.ofMillis(50)));
                assertThat(runner.warnIfStepRunsPast(Duration.ofMillis(50)))
                        .as("the same step, reported once")
                        .isFalse();
            } finally {
                release.countDown();
            }
            await("committed offset 5")
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> m.status().committedOffset() == 5);
            assertThat(runner.warnIfStepRunsPast(Duration.ofSeconds(10)))
                    .as("no step running past the limit once it returned")
                    .isFalse();
            runner.close();
            ExactlyOnceTest.assertExactly(catalog.loadTable(TableNames.of(topic)), 5);
        }
    }

    /**
     * A read of the stream that never completes (the stall a nemesis run saw: a table that stopped moving with nothing
     * in the log) fails its step after {@code readTimeout}, naming the read; the materializer starts again from the
     * table's offsets and goes on, and the entries of the read, when it completes after all, are released.
     */
    @Test
    void aReadThatNeverCompletesFailsItsStepAfterTheReadTimeoutAndTheTopicGoesOn() throws Exception {
        try (Fixture f = new Fixture(dir)) {
            TopicRef topic = TopicRef.parse("persistent://public/default/unanswered");
            StreamLog real = f.stream(topic);
            StreamLog stream = org.mockito.Mockito.spy(real);
            java.util.concurrent.CompletableFuture<java.util.List<dev.lakestream.core.log.LogEntry>> never =
                    new java.util.concurrent.CompletableFuture<>();
            java.util.concurrent.atomic.AtomicBoolean hang = new java.util.concurrent.atomic.AtomicBoolean();
            org.mockito.Mockito.doAnswer(inv -> hang.getAndSet(false) ? never : inv.callRealMethod())
                    .when(stream)
                    .read(
                            org.mockito.ArgumentMatchers.anyLong(),
                            org.mockito.ArgumentMatchers.anyInt(),
                            org.mockito.ArgumentMatchers.anyLong());
            var catalog = f.catalog();
            MaterializerConfig config = MaterializerConfig.fromProperties(java.util.Map.of(
                    "lakestream.iceberg.commitInterval", "1h", "lakestream.iceberg.readTimeout", "500ms"));
            TopicMaterializer m = f.materializer(topic, stream, catalog, config, DeadLetters.log());
            Fixture.append(real, ExactlyOnceTest.entries(0, 3));
            assertThat(m.poll()).isEqualTo(3);
            m.commit();
            assertThat(m.status().committedOffset()).isEqualTo(3);
            hang.set(true);
            // Without the bound this poll never returns.
            int read = org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(Duration.ofSeconds(20), m::poll);
            assertThat(read).isZero();
            assertThat(m.status().state()).isEqualTo(MaterializerStatus.State.RETRYING);
            assertThat(m.status().lastError())
                    .contains("the read of persistent://public/default/unanswered")
                    .contains("at offset 3 did not complete within 500ms")
                    .contains("lakestream.iceberg.readTimeout");
            Fixture.append(real, ExactlyOnceTest.entries(3, 2));
            assertThat(m.poll())
                    .as("the next poll starts again from the table's offsets")
                    .isEqualTo(2);
            m.commit();
            assertThat(m.status().committedOffset()).isEqualTo(5);
            m.close();
            ExactlyOnceTest.assertExactly(catalog.loadTable(TableNames.of(topic)), 5);
            // The read completes after all: its entries are released, not leaked.
            java.util.List<dev.lakestream.core.log.LogEntry> late = java.util.List.of(
                    new dev.lakestream.core.log.LogEntry(
                            real.id(),
                            3,
                            1,
                            0,
                            io.netty.buffer.Unpooled.buffer(8).writeLong(3),
                            false),
                    new dev.lakestream.core.log.LogEntry(
                            real.id(),
                            4,
                            1,
                            0,
                            io.netty.buffer.Unpooled.buffer(8).writeLong(4),
                            false));
            never.complete(late);
            assertThat(late).allSatisfy(e -> assertThat(e.payload().refCnt()).isZero());
        }
    }

    @Test
    void runnersShareOnePoolAndCloseAsyncCommitsWithoutStoppingIt() throws Exception {
        java.util.concurrent.ScheduledExecutorService pool =
                java.util.concurrent.Executors.newSingleThreadScheduledExecutor();
        try (Fixture f = new Fixture(dir)) {
            var catalog = f.catalog();
            MaterializerConfig config = MaterializerConfig.DEFAULT.withCommitInterval(Duration.ofHours(1));
            java.util.List<MaterializerRunner> runners = new java.util.ArrayList<>();
            java.util.List<TopicRef> topics = new java.util.ArrayList<>();
            for (int i = 0; i < 3; i++) {
                TopicRef topic = TopicRef.parse("persistent://public/default/shared-" + i);
                StreamLog stream = f.stream(topic);
                Fixture.append(stream, ExactlyOnceTest.entries(0, 3 + i));
                topics.add(topic);
                runners.add(new MaterializerRunner(
                                f.materializer(topic, stream, catalog, config, DeadLetters.log()),
                                Duration.ofMillis(20),
                                pool)
                        .start());
            }
            for (int i = 0; i < 3; i++) {
                TopicMaterializer m = runners.get(i).materializer();
                long want = 3L + i;
                await("next offset " + want)
                        .atMost(Duration.ofSeconds(30))
                        .until(() -> m.status().nextOffset() >= want);
                assertThat(m.status().committedOffset()).isEqualTo(-1);
            }
            runners.get(0).closeAsync().get(30, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(runners.get(0).materializer().status().state()).isEqualTo(MaterializerStatus.State.CLOSED);
            ExactlyOnceTest.assertExactly(catalog.loadTable(TableNames.of(topics.get(0))), 3);
            assertThat(pool.isShutdown()).isFalse();
            assertThat(runners.get(1).materializer().status().state()).isEqualTo(MaterializerStatus.State.RUNNING);
            for (int i = 1; i < 3; i++) {
                runners.get(i).closeAsync().get(30, java.util.concurrent.TimeUnit.SECONDS);
                ExactlyOnceTest.assertExactly(catalog.loadTable(TableNames.of(topics.get(i))), 3 + i);
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
