package dev.lakestream.iceberg;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One exactly-once commit of the data files that hold a stream's offsets {@code [start, end)} (docs/iceberg.md,
 * "Exactly once"). Before each attempt the table is read once and the stream's committed offset checked against the
 * one the range started from; the append is built on that same version, so the catalog's compare-and-swap refuses
 * it if the table moved ({@link ValidatedBase}), and it is tried again. A commit of unknown outcome is looked up by its
 * commit id. It never deletes files: its {@link Outcome} tells the caller whether the files are in the table.
 */
final class RangeCommit {

    private static final Logger LOG = LoggerFactory.getLogger(RangeCommit.class);
    /** Attempts lost to other streams' commits before giving up (the caller's next poll starts over). */
    private static final int MAX_ATTEMPTS = 20;

    enum Outcome {
        /** The files are in the table, and the stream's offset there is the range's end. */
        COMMITTED,
        /** Another materializer committed this stream since the range started: its commit wins, ours is not in. */
        SUPERSEDED,
        /** The commit failed and the table shows it did not land. */
        NOT_LANDED
    }

    /** A commit that may or may not have landed, and the table could not be read to tell: its files must stay. */
    static final class OutcomeUnknownException extends RuntimeException {
        OutcomeUnknownException(String message, RuntimeException cause) {
            super(message, cause);
        }
    }

    private final Table table;
    private final long streamId;
    private final Long base;
    private final long start;
    private final long end;
    private final List<DataFile> files;
    private final String topic;
    private final String where;
    private final String commitId = UUID.randomUUID().toString();

    /**
     * @param base the stream's offset in the table when the range started (null: the table had none)
     * @param topic the topic name written into the snapshot summary
     * @param where how log lines name the materializer
     */
    RangeCommit(
            Table table,
            long streamId,
            Long base,
            long start,
            long end,
            List<DataFile> files,
            String topic,
            String where) {
        this.table = Objects.requireNonNull(table, "table");
        this.streamId = streamId;
        this.base = base;
        this.start = start;
        this.end = end;
        this.files = List.copyOf(files);
        this.topic = topic;
        this.where = where;
    }

    /**
     * Commits, retrying while the catalog refuses the base; throws {@link CommitFailedException} after
     * {@value #MAX_ATTEMPTS} refusals, {@link OutcomeUnknownException} when a failed commit could not be resolved.
     */
    Outcome run() {
        for (int attempt = 1; ; attempt++) {
            // The check and the append see one version of the table: the append cannot rebase past the check.
            ValidatedBase version = ValidatedBase.read(table);
            Map<Long, Long> offsets = CommitSummary.committedOffsets(version.table());
            Long now = offsets.get(streamId);
            if (!Objects.equals(now, base)) {
                LOG.warn(
                        "{}: offsets [{}, {}) were committed by another materializer (table now at {}); dropping"
                                + " {} data files",
                        where,
                        start,
                        end,
                        now,
                        files.size());
                return Outcome.SUPERSEDED;
            }
            AppendFiles append = version.newAppend();
            files.forEach(append::appendFile);
            Map<Long, Long> carried = new LinkedHashMap<>(offsets);
            carried.put(streamId, end);
            carried.forEach((sid, off) -> append.set(CommitSummary.OFFSET_PREFIX + sid, Long.toString(off)));
            append.set(CommitSummary.RANGE, streamId + ":" + start + "-" + end);
            append.set(CommitSummary.COMMIT_ID, commitId);
            append.set("lakestream.topic", topic);
            try {
                append.commit();
                table.refresh();
                return Outcome.COMMITTED;
            } catch (CommitFailedException e) {
                // The catalog refused our base (another commit landed first): re-validate and try again.
                if (attempt >= MAX_ATTEMPTS) {
                    throw e;
                }
            } catch (RuntimeException e) {
                // CommitStateUnknownException, or anything else from the catalog: the commit may have landed, so its
                // files must not be deleted unless the table shows it did not.
                return resolve(e);
            }
        }
    }

    private Outcome resolve(RuntimeException failure) {
        Boolean landed = lookUp();
        if (landed == null) {
            LOG.warn(
                    "{}: commit {} of offsets [{}, {}) has an unknown outcome that could not be resolved; its {} files"
                            + " are left in place (orphans if it did not land)",
                    where,
                    commitId,
                    start,
                    end,
                    files.size(),
                    failure);
            throw new OutcomeUnknownException(
                    where + ": commit " + commitId + " of offsets [" + start + ", " + end + ") has an unknown outcome",
                    failure);
        }
        if (!landed) {
            LOG.warn(
                    "{}: commit {} of offsets [{}, {}) failed ({}) and is not in the table; redoing the range",
                    where,
                    commitId,
                    start,
                    end,
                    failure.toString());
            return Outcome.NOT_LANDED;
        }
        LOG.info("{}: commit {} of unknown outcome ({}) is in the table", where, commitId, failure.toString());
        return Outcome.COMMITTED;
    }

    /** Whether the commit is in the table; null when the table cannot be read (after a few tries). */
    private Boolean lookUp() {
        for (int attempt = 1; attempt <= 5; attempt++) {
            try {
                table.refresh();
                return CommitSummary.contains(table, commitId);
            } catch (RuntimeException e) {
                LOG.warn(
                        "{}: cannot read the table to resolve commit {} (attempt {}): {}",
                        where,
                        commitId,
                        attempt,
                        e.toString());
                try {
                    Thread.sleep(200L * attempt);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    return null;
                }
            }
        }
        return null;
    }
}
