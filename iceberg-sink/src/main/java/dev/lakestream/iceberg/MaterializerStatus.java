package dev.lakestream.iceberg;

/**
 * A topic partition's materialization at one moment (published after every transition; safe to read anywhere).
 *
 * @param state what the materializer is doing
 * @param committedOffset the stream offset the table holds everything below (-1 before the first commit)
 * @param nextOffset the next stream offset to read (written rows not yet committed lie between the two)
 * @param lastCommitMillis when the last commit landed (ms since the epoch; 0 = none yet)
 * @param lastError the reason of the pause or of the last failure, or null
 * @param commits commits this materializer made
 * @param rowsCommitted rows in those commits
 * @param deadLetters messages sent to the dead letters
 * @param conflicts commits abandoned because another materializer had committed the same offsets
 * @param streamEndOffset the stream's end offset at the last poll (-1 before the first)
 * @param oldestUncommittedMillis the commit time in the log of the oldest entry read but not yet committed (ms since
 *     the epoch; 0 when nothing is pending)
 * @param readsHeld reads put off because the process's buffered entries were at their bound ({@link MemoryBudget})
 */
public record MaterializerStatus(
        State state,
        long committedOffset,
        long nextOffset,
        long lastCommitMillis,
        String lastError,
        long commits,
        long rowsCommitted,
        long deadLetters,
        long conflicts,
        long streamEndOffset,
        long oldestUncommittedMillis,
        long readsHeld) {

    /** Entries in the stream not yet in the table (as of the last poll). */
    public long lagEntries() {
        return streamEndOffset < 0 ? 0 : Math.max(0, streamEndOffset - Math.max(0, committedOffset));
    }

    /**
     * How long the oldest entry not yet in the table has waited: since its commit to the log when it has been read,
     * else since the last commit; 0 when the table is up to date.
     */
    public long lagMillis(long nowMillis) {
        if (lagEntries() == 0) {
            return 0;
        }
        long since = oldestUncommittedMillis > 0 ? oldestUncommittedMillis : lastCommitMillis;
        return Math.max(0, nowMillis - since);
    }

    public enum State {
        /** Not opened yet. */
        NEW,
        /** Reading, writing and committing. */
        RUNNING,
        /** Stopped on a schema or message it cannot take ({@code lastError}); a restart after a fix resumes. */
        PAUSED,
        /** The last attempt failed ({@code lastError}); the next poll starts again from the table's offsets. */
        RETRYING,
        CLOSED
    }
}
