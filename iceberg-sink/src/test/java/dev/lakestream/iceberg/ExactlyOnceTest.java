package dev.lakestream.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lakestream.core.StreamLog;
import dev.lakestream.iceberg.FaultyJdbcCatalog.Fault;
import dev.lakestream.iceberg.pulsar.PulsarEntries;
import dev.lakestream.iceberg.pulsar.PulsarEntries.Msg;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.pulsar.common.api.proto.CompressionType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Exactly once: every message is in the table once, whatever fails between writing files and committing, and
 * whoever else materializes the same topic at the same time.
 */
class ExactlyOnceTest {

    @TempDir
    java.nio.file.Path dir;

    /** Entries {@code [from, from + n)} of a bytes topic, each a batch of 3 messages "m-<entry>-<i>". */
    static List<ByteBuf> entries(int from, int n) {
        List<ByteBuf> out = new ArrayList<>();
        for (int e = from; e < from + n; e++) {
            List<Msg> batch = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                batch.add(
                        new Msg(null, Map.of(), 0, e * 3L + i, ("m-" + e + "-" + i).getBytes(StandardCharsets.UTF_8)));
            }
            out.add(PulsarEntries.batch("p", 1_764_000_000_000L + e, null, CompressionType.LZ4, batch, false));
        }
        return out;
    }

    /** The table holds exactly the messages of entries [0, n): no duplicate, no gap. */
    static void assertExactly(Table table, int n) {
        List<Record> rows = Fixture.rows(table);
        List<String> values = rows.stream()
                .map(r -> StandardCharsets.UTF_8
                        .decode(((java.nio.ByteBuffer) r.getField("value")).duplicate())
                        .toString())
                .toList();
        List<String> expected = new ArrayList<>();
        for (int e = 0; e < n; e++) {
            for (int i = 0; i < 3; i++) {
                expected.add("m-" + e + "-" + i);
            }
        }
        assertThat(values).containsExactlyElementsOf(expected);
    }

    @Test
    void everyKindOfCommitFailureEndsWithEachMessageOnce() throws Exception {
        try (Fixture f = new Fixture(dir)) {
            TopicRef topic = TopicRef.parse("persistent://public/default/faults");
            StreamLog stream = f.stream(topic);
            FaultyJdbcCatalog catalog = f.catalog();
            TopicMaterializer m = f.materializer(topic, stream, catalog, Fixture.eager(), DeadLetters.log());
            m.open();
            int total = 0;
            for (Fault fault : Fault.values()) {
                Fixture.append(stream, entries(total, 4));
                total += 4;
                catalog.injectIntoNextCommit(fault);
                for (int i = 0; i < 5 && m.status().committedOffset() < total; i++) {
                    Fixture.drain(m);
                }
                assertThat(catalog.faultPending())
                        .as("fault %s was injected", fault)
                        .isFalse();
                assertThat(m.status().committedOffset()).as("after %s", fault).isEqualTo(total);
                Table table = catalog.loadTable(TableNames.of(topic));
                assertExactly(table, total);
                // Files of commits that did not happen were deleted: every Parquet file on disk is in the table.
                assertThat(Fixture.dataFilesOnDisk(table))
                        .as("orphans after %s", fault)
                        .isEqualTo(countFiles(table));
            }
            m.close();
        }
    }

    @Test
    void aRestartAfterACrashBetweenWritingAndCommittingContinuesFromTheTable() throws Exception {
        try (Fixture f = new Fixture(dir)) {
            TopicRef topic = TopicRef.parse("persistent://public/default/crash");
            StreamLog stream = f.stream(topic);
            Fixture.append(stream, entries(0, 10));
            FaultyJdbcCatalog catalog = f.catalog();
            MaterializerConfig slow = MaterializerConfig.DEFAULT.withRead(4, 1 << 20); // commits only when asked
            TopicMaterializer first = f.materializer(topic, stream, catalog, slow, DeadLetters.log());
            first.open();
            first.poll();
            first.commit(); // entries [0, 4) committed
            first.poll(); // [4, 8) written, never committed: the process "dies" here
            assertThat(first.status().committedOffset()).isEqualTo(4);

            Fixture.append(stream, entries(10, 2));
            TopicMaterializer second = f.materializer(topic, stream, f.catalog(), Fixture.eager(), DeadLetters.log());
            second.open();
            assertThat(second.status().nextOffset()).isEqualTo(4);
            Fixture.drain(second);
            assertExactly(catalog.loadTable(TableNames.of(topic)), 12);
            second.close();
        }
    }

    @Test
    void aCommitByAnotherProcessBetweenTheCheckAndTheCommitIsNeverBuiltUpon() throws Exception {
        try (Fixture f = new Fixture(dir)) {
            TopicRef topic = TopicRef.parse("persistent://public/default/window");
            StreamLog stream = f.stream(topic);
            Fixture.append(stream, entries(0, 4));
            MaterializerConfig onRequest = MaterializerConfig.DEFAULT.withRead(4, 1 << 20);
            FaultyJdbcCatalog catalogA = f.catalog();
            TopicMaterializer a = f.materializer(topic, stream, catalogA, onRequest, DeadLetters.log());
            TopicMaterializer b = f.materializer(topic, stream, f.catalog(), onRequest, DeadLetters.log());
            a.open();
            b.open();
            a.poll();
            b.poll(); // both hold [0, 4), written and not committed
            // A reads the table once to check its base; B commits [0, 4) right after that read. Iceberg's append
            // re-reads the table when it builds the snapshot: it must not build A's commit on B's.
            catalogA.beforeRefresh(2, b::commit);
            a.commit();
            Table table = f.catalog().loadTable(TableNames.of(topic));
            assertExactly(table, 4);
            assertThat(a.status().commits() + b.status().commits()).isEqualTo(1);
            assertThat(Fixture.dataFilesOnDisk(table))
                    .as("the loser's files are deleted")
                    .isEqualTo(countFiles(table));
            a.close();
            b.close();
        }
    }

    @Test
    void twoMaterializersRacingOnOneTopicNeverCommitAnOffsetTwice() throws Exception {
        try (Fixture f = new Fixture(dir)) {
            TopicRef topic = TopicRef.parse("persistent://public/default/race");
            StreamLog stream = f.stream(topic);
            int total = 60;
            Fixture.append(stream, entries(0, 20));
            MaterializerConfig small = Fixture.eager().withRead(3, 1 << 20);
            TopicMaterializer a = f.materializer(topic, stream, f.catalog(), small, DeadLetters.log());
            TopicMaterializer b = f.materializer(topic, stream, f.catalog(), small, DeadLetters.log());
            a.open();
            b.open();
            CountDownLatch go = new CountDownLatch(1);
            Future<?> ra = f.executor.submit(() -> race(a, go, total));
            Future<?> rb = f.executor.submit(() -> race(b, go, total));
            go.countDown();
            Fixture.append(stream, entries(20, 20));
            Fixture.append(stream, entries(40, 20));
            ra.get(120, TimeUnit.SECONDS);
            rb.get(120, TimeUnit.SECONDS);

            Table table = f.catalog().loadTable(TableNames.of(topic));
            assertExactly(table, total);
            // Every commit covered a range that starts where the previous one ended.
            List<long[]> ranges = new ArrayList<>();
            for (var s : table.snapshots()) {
                String r = s.summary().get(CommitSummary.RANGE);
                if (r != null) {
                    String[] p = r.substring(r.indexOf(':') + 1).split("-", -1);
                    ranges.add(new long[] {Long.parseLong(p[0]), Long.parseLong(p[1])});
                }
            }
            long expectedStart = 0;
            for (long[] r : ranges) {
                assertThat(r[0]).isEqualTo(expectedStart);
                expectedStart = r[1];
            }
            assertThat(expectedStart).isEqualTo(total);
            long commits = a.status().commits() + b.status().commits();
            assertThat(commits).isEqualTo(ranges.size());
            assertThat(Fixture.dataFilesOnDisk(table)).isEqualTo(countFiles(table));
            a.close();
            b.close();
        }
    }

    private static void race(TopicMaterializer m, CountDownLatch go, int total) {
        try {
            go.await();
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(100);
        while (m.status().committedOffset() < total && System.nanoTime() < deadline) {
            if (m.poll() == 0) {
                m.commit();
            }
        }
    }

    private static long countFiles(Table table) throws Exception {
        long n = 0;
        try (var tasks = table.newScan().planFiles()) {
            for (var unused : tasks) {
                n++;
            }
        }
        return n;
    }
}
