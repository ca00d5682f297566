package dev.lakestream.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lakestream.core.StreamLog;
import dev.lakestream.core.config.ConfigException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import org.apache.iceberg.catalog.Catalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The process-wide bound on buffered entries ({@code lakestream.iceberg.maxBufferedBytes}): materializers sharing a
 * {@link MemoryBudget} never hold more than it (give or take one entry each), one that finds the budget spent reads
 * nothing, one that holds part of it commits early to give it back, and every message still ends in its table once.
 */
class MemoryBoundTest {

    @TempDir
    Path dir;

    private static long entrySize() {
        // The stored size of one test entry (a batch of 3 LZ4-compressed messages).
        var e = ExactlyOnceTest.entries(0, 1).get(0);
        try {
            return e.readableBytes();
        } finally {
            e.release();
        }
    }

    @Test
    void readingPausesAtTheBoundAndCommitsGiveItBack() throws Exception {
        try (Fixture f = new Fixture(dir)) {
            long entry = entrySize();
            // Reads of about 4 entries; the whole process may hold about 10 entries' worth.
            long readBytes = 4 * entry;
            long bound = 10 * entry;
            // Commits only when the bound forces them (the interval is an hour).
            MaterializerConfig config = MaterializerConfig.DEFAULT
                    .withCommitInterval(Duration.ofHours(1))
                    .withRead(1000, readBytes)
                    .withMaxBufferedBytes(bound);
            MemoryBudget budget = new MemoryBudget(config.maxBufferedBytes());
            Catalog catalog = f.catalog();
            TopicRef a = TopicRef.parse("persistent://public/default/bounded-a");
            TopicRef b = TopicRef.parse("persistent://public/default/bounded-b");
            StreamLog streamA = f.stream(a);
            StreamLog streamB = f.stream(b);
            Fixture.append(streamA, ExactlyOnceTest.entries(0, 24));
            Fixture.append(streamB, ExactlyOnceTest.entries(0, 24));
            TopicMaterializer ma = materializer(f, a, streamA, catalog, config, budget);
            TopicMaterializer mb = materializer(f, b, streamB, catalog, config, budget);
            ma.open();
            mb.open();

            // A reads until the budget has no room for another read.
            long most = 0;
            while (ma.poll() > 0) {
                most = Math.max(most, budget.used());
                assertThat(budget.used()).as("buffered bytes").isLessThanOrEqualTo(bound + 2 * entry);
            }
            assertThat(most).as("A held what it read, up to the bound").isGreaterThan(bound - readBytes);
            assertThat(ma.status().readsHeld()).as("A's reads put off").isEqualTo(1);
            assertThat(ma.status().commits())
                    .as("A gave its share back by committing")
                    .isEqualTo(1);
            assertThat(budget.used()).as("after A's early commit").isZero();

            // A fills the budget again; B, holding nothing, must not read.
            ma.poll();
            ma.poll();
            assertThat(budget.used()).isGreaterThan(bound - readBytes);
            assertThat(mb.poll())
                    .as("B reads nothing while the budget is spent")
                    .isZero();
            assertThat(mb.status().readsHeld()).isEqualTo(1);
            assertThat(mb.status().nextOffset()).as("B has not moved").isZero();

            // A commits (at its next poll, finding the budget spent): B reads again.
            ma.poll();
            assertThat(budget.used()).isZero();
            assertThat(mb.poll()).as("B reads once there is room").isPositive();

            // Both drain under the bound and end exactly once.
            for (int i = 0;
                    i < 200
                            && (ma.status().committedOffset() < 24
                                    || mb.status().committedOffset() < 24);
                    i++) {
                ma.poll();
                mb.poll();
                assertThat(budget.used()).isLessThanOrEqualTo(bound + 2 * entry);
                if (ma.status().nextOffset() == 24) {
                    ma.commit();
                }
                if (mb.status().nextOffset() == 24) {
                    mb.commit();
                }
            }
            ExactlyOnceTest.assertExactly(catalog.loadTable(TableNames.of(a)), 24);
            ExactlyOnceTest.assertExactly(catalog.loadTable(TableNames.of(b)), 24);
            ma.close();
            mb.close();
            assertThat(budget.used()).as("nothing held after close").isZero();
        }
    }

    @Test
    void theBoundMustHoldAtLeastOneRead() {
        assertThatThrownBy(() -> MaterializerConfig.fromProperties(
                        Map.of("lakestream.iceberg.readBytes", "8MiB", "lakestream.iceberg.maxBufferedBytes", "1MiB")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("lakestream.iceberg.maxBufferedBytes")
                .hasMessageContaining("lakestream.iceberg.readBytes");
        assertThat(MaterializerConfig.fromProperties(Map.of()).maxBufferedBytes())
                .isEqualTo(256L * 1024 * 1024);
    }

    private static TopicMaterializer materializer(
            Fixture f,
            TopicRef topic,
            StreamLog stream,
            Catalog catalog,
            MaterializerConfig config,
            MemoryBudget budget) {
        return new TopicMaterializer(
                topic,
                stream,
                PositionResolver.managedLedger(f.metadata, Fixture.ROOT, stream.id(), topic.partition()),
                new dev.lakestream.iceberg.schema.RegistrySchemaSource(f.metadata, Fixture.ROOT, f.executor),
                catalog,
                TableNames.of(topic),
                config,
                DeadLetters.log(),
                Clock.systemUTC(),
                budget);
    }
}
