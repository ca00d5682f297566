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
            for (var unused : tasks) {
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
            TopicMaterializer m =
                    f.materializer(topic, stream, catalog, Fixture.eager().withRead(1, 1 << 20), DeadLetters.log());
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

    @Test
    void orphanFilesOlderThanTheMinimumAgeAreDeletedAndReferencedOnesKept() throws Exception {
        try (Fixture f = new Fixture(dir)) {
            TopicRef topic = TopicRef.parse("persistent://public/default/orphans");
            StreamLog stream = f.stream(topic);
            var catalog = f.catalog();
            TopicMaterializer m =
                    f.materializer(topic, stream, catalog, Fixture.eager().withRead(1, 1 << 20), DeadLetters.log());
            m.open();
            Fixture.append(stream, ExactlyOnceTest.entries(0, 4));
            Fixture.drain(m);
            Table table = catalog.loadTable(TableNames.of(topic));
            // Compacted but not expired: the 4 small files are referenced only by the older snapshots now.
            assertThat(TableMaintenance.compact(table, 128L << 20, 2)).isEqualTo(4);
            long referenced = Fixture.dataFilesOnDisk(table);
            assertThat(referenced).isEqualTo(5);

            // What a process that died between writing and committing leaves: files no snapshot knows.
            java.nio.file.Path data =
                    java.nio.file.Path.of(java.net.URI.create(table.location())).resolve("data");
            java.nio.file.Path old = java.nio.file.Files.write(data.resolve("dead-writer-old.parquet"), new byte[10]);
            java.nio.file.Path young =
                    java.nio.file.Files.write(data.resolve("dead-writer-young.parquet"), new byte[10]);
            java.nio.file.Files.setLastModifiedTime(
                    old,
                    java.nio.file.attribute.FileTime.fromMillis(
                            System.currentTimeMillis() - Duration.ofHours(3).toMillis()));
            // Every file of the table is old too: age alone must not be the reason to delete.
            try (var files = java.nio.file.Files.walk(data)) {
                for (var p : (Iterable<java.nio.file.Path>) files::iterator) {
                    if (p.toString().endsWith(".parquet") && !p.equals(young)) {
                        java.nio.file.Files.setLastModifiedTime(
                                p,
                                java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis()
                                        - Duration.ofHours(3).toMillis()));
                    }
                }
            }

            int deleted = TableMaintenance.removeOrphanFiles(table, Duration.ofHours(1), Clock.systemUTC());
            assertThat(deleted).as("orphans deleted").isEqualTo(1);
            assertThat(old).doesNotExist();
            assertThat(young)
                    .as("younger than the minimum age: perhaps a commit in progress")
                    .exists();
            assertThat(Fixture.dataFilesOnDisk(table))
                    .as("referenced files kept, and the young orphan")
                    .isEqualTo(referenced + 1);
            ExactlyOnceTest.assertExactly(table, 4);
            // Time travel to the snapshot before the compaction still reads its (small) files.
            table.refresh();
            long beforeCompaction = table.currentSnapshot().parentId();
            long rowsThen = 0;
            try (var rows = org.apache.iceberg.data.IcebergGenerics.read(table)
                    .useSnapshot(beforeCompaction)
                    .build()) {
                for (var unused : rows) {
                    rowsThen++;
                }
            }
            assertThat(rowsThen).isEqualTo(12);

            // Through upkeep with the configured age.
            UpkeepConfig settings =
                    UpkeepConfig.fromProperties(java.util.Map.of(UpkeepConfig.ORPHAN_FILE_MIN_AGE, "1m"));
            java.nio.file.Files.setLastModifiedTime(
                    young,
                    java.nio.file.attribute.FileTime.fromMillis(
                            System.currentTimeMillis() - Duration.ofMinutes(2).toMillis()));
            TableMaintenance.upkeep(table, 128L << 20, settings);
            assertThat(young).doesNotExist();
            ExactlyOnceTest.assertExactly(table, 4);
            m.close();
        }
    }

    @Test
    void anOrphanFileMinimumAgeUnderAMinuteIsRefused() {
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> UpkeepConfig.fromProperties(java.util.Map.of(UpkeepConfig.ORPHAN_FILE_MIN_AGE, "5s")))
                .isInstanceOf(dev.lakestream.core.config.ConfigException.class)
                .hasMessageContaining(UpkeepConfig.ORPHAN_FILE_MIN_AGE);
        assertThat(UpkeepConfig.fromProperties(java.util.Map.of(UpkeepConfig.ORPHAN_FILE_MIN_AGE, "0s"))
                        .orphanFileMinAge())
                .isZero();
        assertThat(UpkeepConfig.DEFAULT.orphanFileMinAge()).isEqualTo(Duration.ofDays(1));
    }
}
