package dev.lakestream.core.gc;

import java.time.Instant;

/**
 * What one garbage-collection run did.
 *
 * @param horizon objects named before {@code horizon - safetyMargin} were unreferenced and deleted
 * @param deletedBelowHorizon objects deleted because every stream was trimmed past them
 * @param deletedOrphans objects deleted because no index record references them
 * @param deletedReleased objects deleted because the streams that had them trimmed them or were deleted, and no
 *     live stream references them
 * @param deletedSegments compacted segments deleted because no index record names them (a failed switch's, or released
 *     by a trim, a stream delete or a merge)
 * @param deletedBytes the size of all deleted objects, as the listing gave it
 * @param deadStreamsCleared deleted streams whose leftover index records were removed
 */
public record GcResult(
        Instant horizon,
        int deletedBelowHorizon,
        int deletedOrphans,
        int deletedReleased,
        int deletedSegments,
        long deletedBytes,
        int deadStreamsCleared) {

    public int deletedObjects() {
        return deletedBelowHorizon + deletedOrphans + deletedReleased + deletedSegments;
    }
}
