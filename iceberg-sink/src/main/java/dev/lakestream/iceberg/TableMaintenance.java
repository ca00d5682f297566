package dev.lakestream.iceberg;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.ManifestContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RewriteFiles;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.io.RollingDataWriter;
import org.apache.iceberg.io.SupportsPrefixOperations;
import org.apache.iceberg.parquet.Parquet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Upkeep of a materialized table: small-file compaction and snapshot expiry, both keeping the exactly-once
 * bookkeeping intact.
 *
 * <ul>
 *   <li>{@link #compact}: per partition, data files under 3/4 of the target size are rewritten into target-size
 *       files in one {@code RewriteFiles} commit that carries every {@code lakestream.offset.*} key of its base
 *       forward (so the newest snapshot still says where each stream stands). Its commit is validated against
 *       concurrent commits by Iceberg (files it rewrites must still be live) and retried here on a new base.</li>
 *   <li>{@link #expireSnapshots}: never expires the newest snapshot that carries offsets.</li>
 *   <li>{@link #removeOrphanFiles}: deletes data files under the table's data directory that no snapshot
 *       references and that are older than a minimum age (files of a process that died before its commit).</li>
 * </ul>
 * Blocking; run it on a maintenance thread, not on a materializer's.
 */
public final class TableMaintenance {

    private static final Logger LOG = LoggerFactory.getLogger(TableMaintenance.class);
    private static final int MAX_ATTEMPTS = 10;

    private TableMaintenance() {}

    /**
     * Rewrites the small files of each partition that has at least {@code minFiles} of them.
     *
     * @return the number of files rewritten (0 when nothing was worth it)
     */
    public static int compact(Table table, long targetFileSizeBytes, int minFiles) {
        table.refresh();
        Snapshot base = table.currentSnapshot();
        if (base == null) {
            return 0;
        }
        long small = targetFileSizeBytes * 3 / 4;
        Map<String, List<DataFile>> byPartition = new LinkedHashMap<>();
        try (CloseableIterable<FileScanTask> tasks =
                table.newScan().useSnapshot(base.snapshotId()).planFiles()) {
            for (FileScanTask t : tasks) {
                DataFile f = t.file();
                if (f.fileSizeInBytes() < small && t.deletes().isEmpty()) {
                    byPartition
                            .computeIfAbsent(f.specId() + "/" + f.partition(), k -> new ArrayList<>())
                            .add(f);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("planning the compaction of " + table.name() + " failed", e);
        }
        Set<DataFile> rewritten = new HashSet<>();
        Set<DataFile> written = new HashSet<>();
        try {
            for (List<DataFile> files : byPartition.values()) {
                if (files.size() < minFiles) {
                    continue;
                }
                written.addAll(rewrite(table, files, targetFileSizeBytes));
                rewritten.addAll(files);
            }
            if (rewritten.isEmpty()) {
                return 0;
            }
            commitRewrite(table, base.snapshotId(), rewritten, written);
        } catch (RuntimeException e) {
            for (DataFile f : written) {
                table.io().deleteFile(f.location());
            }
            throw e;
        }
        LOG.info("compacted {} files of {} into {}", rewritten.size(), table.name(), written.size());
        return rewritten.size();
    }

    private static List<DataFile> rewrite(Table table, List<DataFile> files, long targetFileSizeBytes) {
        DataFile first = files.get(0);
        PartitionSpec spec = table.specs().get(first.specId());
        StructLike partition = first.partition();
        GenericFileWriterFactory factory = new GenericFileWriterFactory.Builder(table)
                .dataFileFormat(FileFormat.PARQUET)
                .dataSchema(table.schema())
                .build();
        OutputFileFactory out = OutputFileFactory.builderFor(table, 0, System.currentTimeMillis())
                .format(FileFormat.PARQUET)
                .operationId("compact-" + UUID.randomUUID())
                .build();
        RollingDataWriter<Record> writer =
                new RollingDataWriter<>(factory, out, table.io(), targetFileSizeBytes, spec, partition);
        try {
            for (DataFile f : files) {
                try (CloseableIterable<Record> rows = Parquet.read(table.io().newInputFile(f.location()))
                        .project(table.schema())
                        .createReaderFunc(fileSchema -> GenericParquetReaders.buildReader(table.schema(), fileSchema))
                        .build()) {
                    for (Record r : rows) {
                        writer.write(r);
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("rewriting files of " + table.name() + " failed", e);
        } finally {
            try {
                writer.close();
            } catch (IOException e) {
                throw new UncheckedIOException("closing rewritten files of " + table.name() + " failed", e);
            }
        }
        return writer.result().dataFiles();
    }

    private static void commitRewrite(
            Table table, long baseSnapshotId, Set<DataFile> rewritten, Set<DataFile> written) {
        for (int attempt = 1; ; attempt++) {
            table.refresh();
            RewriteFiles rewrite = table.newRewrite().validateFromSnapshot(baseSnapshotId);
            rewritten.forEach(rewrite::deleteFile);
            written.forEach(rewrite::addFile);
            CommitSummary.committedOffsets(table)
                    .forEach((sid, off) -> rewrite.set(CommitSummary.OFFSET_PREFIX + sid, Long.toString(off)));
            rewrite.set("lakestream.maintenance", "compaction");
            try {
                rewrite.commit();
                return;
            } catch (CommitFailedException e) {
                // A materializer committed meanwhile: carry its offsets forward on the new base.
                if (attempt >= MAX_ATTEMPTS) {
                    throw e;
                }
            }
        }
    }

    /**
     * Expires snapshots older than {@code maxAge}, keeping at least {@code retainLast} and always the newest one
     * that carries offsets (the exactly-once bookkeeping).
     */
    public static void expireSnapshots(Table table, Duration maxAge, int retainLast, Clock clock) {
        table.refresh();
        long cutoff = clock.millis() - maxAge.toMillis();
        for (Snapshot s = table.currentSnapshot();
                s != null;
                s = s.parentId() == null ? null : table.snapshot(s.parentId())) {
            if (!CommitSummary.offsets(s).isEmpty()) {
                cutoff = Math.min(cutoff, s.timestampMillis());
                break;
            }
        }
        table.expireSnapshots()
                .expireOlderThan(cutoff)
                .retainLast(Math.max(1, retainLast))
                .commit();
    }

    /**
     * Deletes the files under the table's data directory that no snapshot of the table references and that were last
     * modified more than {@code minAge} ago: data files a materializer wrote and never committed (it died between
     * writing and committing, or a commit of unknown outcome could not be resolved). The age guards the files of
     * commits in progress: it must be far longer than any commit takes (hours, against a commit interval of seconds).
     * Files referenced by any snapshot still in the table's history (time travel) are kept.
     *
     * @return the number of files deleted
     * @throws UnsupportedOperationException when the table's FileIO cannot list files
     */
    public static int removeOrphanFiles(Table table, Duration minAge, Clock clock) {
        if (!(table.io() instanceof SupportsPrefixOperations io)) {
            throw new UnsupportedOperationException("removeOrphanFiles: the FileIO of table " + table.name() + " ("
                    + table.io().getClass().getName() + ") cannot list files");
        }
        table.refresh();
        long cutoff = clock.millis() - minAge.toMillis();
        Set<String> referenced = new HashSet<>();
        Set<String> manifests = new HashSet<>();
        for (Snapshot s : table.snapshots()) {
            for (ManifestFile m : s.allManifests(table.io())) {
                if (!manifests.add(m.path())) {
                    continue;
                }
                try (CloseableIterable<? extends ContentFile<?>> files = m.content() == ManifestContent.DATA
                        ? ManifestFiles.read(m, table.io(), table.specs())
                        : ManifestFiles.readDeleteManifest(m, table.io(), table.specs())) {
                    files.forEach(f -> referenced.add(comparable(f.location())));
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot read manifest " + m.path() + " of " + table.name(), e);
                }
            }
        }
        String dataDir =
                table.properties().getOrDefault(TableProperties.WRITE_DATA_LOCATION, table.location() + "/data");
        int deleted = 0;
        for (FileInfo f : io.listPrefix(dataDir)) {
            if (f.createdAtMillis() < cutoff && !referenced.contains(comparable(f.location()))) {
                io.deleteFile(f.location());
                deleted++;
                LOG.info(
                        "{}: deleted orphan file {} ({} bytes, not referenced by any snapshot)",
                        table.name(),
                        f.location(),
                        f.size());
            }
        }
        return deleted;
    }

    /** A location as compared: {@code file:/x}, {@code file:///x} and {@code /x} name the same file. */
    private static String comparable(String location) {
        if (location.startsWith("file:")) {
            return java.nio.file.Path.of(java.net.URI.create(location)).toString();
        }
        return location;
    }

    /**
     * One round of upkeep as both hosts (brokers, the standalone tool) run it: compaction, snapshot expiry, then
     * (unless {@code orphanFileMinAge} is 0 or the FileIO cannot list) orphan-file removal.
     *
     * @return the number of small files rewritten
     */
    public static int upkeep(Table table, long targetFileSizeBytes, UpkeepConfig settings) {
        int rewritten = compact(table, targetFileSizeBytes, settings.compactionMinFiles());
        expireSnapshots(table, settings.snapshotMaxAge(), settings.snapshotsRetained(), Clock.systemUTC());
        if (!settings.orphanFileMinAge().isZero()) {
            if (table.io() instanceof SupportsPrefixOperations) {
                removeOrphanFiles(table, settings.orphanFileMinAge(), Clock.systemUTC());
            } else {
                LOG.warn(
                        "{}: orphan files are not removed: its FileIO ({}) cannot list files",
                        table.name(),
                        table.io().getClass().getName());
            }
        }
        return rewritten;
    }
}
