package dev.lakestream.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lakestream.core.StreamLog;
import java.time.Clock;
import java.time.Duration;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Compaction and snapshot expiry keep every row once and the offsets the materializer resumes from. */
class TableMaintenanceTest {

    @TempDir
    java.nio.file.Path dir;

    private static long liveFiles(Table table) throws Exception {
        table.refresh();
        long n = 0;
        try (var tasks = table.newScan().planFiles()) {
            for (var t : tasks) {
                n++;
            }
        }
        return n;
    }

    @Test
    void smallFilesAreRewrittenAndOldSnapshotsExpiredWithoutLosingTheOffsets() throws Exception {
        try (Fixture f = new Fixture(dir)) {
            TopicRef topic = TopicRef.parse("persistent://public/default/small-files");
            StreamLog stream = f.stream(topic);
            var catalog = f.catalog();
            // One entry per read and a commit per poll: one small file per entry.
            TopicMaterializer m = f.materializer(topic, stream, catalog, Fixture.eager().withRead(1, 1 << 20),
                    DeadLetters.log());
            m.open();
            Fixture.append(stream, ExactlyOnceTest.entries(0, 8));
            Fixture.drain(m);
            Table table = catalog.loadTable(TableNames.of(topic));
            assertThat(liveFiles(table)).isEqualTo(8);

            assertThat(TableMaintenance.compact(table, 128L << 20, 4)).isEqualTo(8);
            assertThat(liveFiles(table)).isEqualTo(1);
            ExactlyOnceTest.assertExactly(table, 8);
            assertThat(CommitSummary.committedOffsets(table)).containsEntry(stream.id(), 8L);

            TableMaintenance.expireSnapshots(table, Duration.ZERO, 1, Clock.systemUTC());
            table.refresh();
            assertThat(table.snapshots()).hasSize(1);
            assertThat(CommitSummary.committedOffsets(table)).containsEntry(stream.id(), 8L);

            // The materializer (and a new one) go on from the offsets after compaction and expiry.
            Fixture.append(stream, ExactlyOnceTest.entries(8, 2));
            Fixture.drain(m);
            TopicMaterializer fresh = f.materializer(topic, stream, f.catalog(), Fixture.eager(), DeadLetters.log());
            fresh.open();
            assertThat(fresh.status().nextOffset()).isEqualTo(10);
            ExactlyOnceTest.assertExactly(catalog.loadTable(TableNames.of(topic)), 10);
            // Once the compaction's snapshot expires too, the files it replaced are deleted (Iceberg's incremental
            // cleanup); what remains on disk is what the table references.
            TableMaintenance.expireSnapshots(table, Duration.ZERO, 1, Clock.systemUTC());
            assertThat(Fixture.dataFilesOnDisk(table)).isEqualTo(liveFiles(table));
            assertThat(liveFiles(table)).isEqualTo(3); // the compacted file and one per later entry
            ExactlyOnceTest.assertExactly(table, 10);
            m.close();
            fresh.close();
        }
    }
}
