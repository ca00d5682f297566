package dev.lakestream.core.gc;

import java.time.Instant;

/**
 * What one garbage-collection run did.
 *
 * @param ran false when another process held the GC lock and this run did nothing
 * @param horizon objects named before {@code horizon - safetyMargin} were unreferenced and deleted
 * @param deletedBelowHorizon objects deleted because every stream was trimmed past them
 * @param deletedOrphans objects deleted because no index record references them
 * @param deadStreamsCleared deleted streams whose leftover index records were removed
 */
public record GcResult(boolean ran, Instant horizon, int deletedBelowHorizon, int deletedOrphans,
                       int deadStreamsCleared) {

    static GcResult skipped() {
        return new GcResult(false, null, 0, 0, 0);
    }
}
