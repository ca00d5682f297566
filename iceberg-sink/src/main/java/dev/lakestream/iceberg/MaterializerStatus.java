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
 */
public record MaterializerStatus(State state, long committedOffset, long nextOffset, long lastCommitMillis,
                                 String lastError, long commits, long rowsCommitted, long deadLetters,
                                 long conflicts) {

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
