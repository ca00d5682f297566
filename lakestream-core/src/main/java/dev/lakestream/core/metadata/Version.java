package dev.lakestream.core.metadata;

/**
 * The version of a record.
 *
 * @param versionId changes on every write of the key; what compare-and-set compares. Ids grow across the store
 *     (across the shard on Oxia, where sessions use some too), so they are not dense per key
 * @param modificationsCount how many times the key was written since it was created (0 on creation)
 * @param createdTimestamp server time, ms since the epoch, when the key was created
 * @param modifiedTimestamp server time, ms since the epoch, of the last write
 * @param sessionId the session an ephemeral record is bound to, or {@link #NO_SESSION}
 */
public record Version(
        long versionId, long modificationsCount, long createdTimestamp, long modifiedTimestamp, long sessionId) {

    public static final long NO_SESSION = -1;

    public boolean isEphemeral() {
        return sessionId != NO_SESSION;
    }
}
