package dev.lakestream.core.gc;

import java.time.Instant;
import java.util.Optional;

/**
 * What a process's {@link GcService} has done.
 *
 * @param enabled whether the service runs at all ({@code lakestream.gc.enabled})
 * @param leaseHeld whether this process holds the GC lease, i.e. is the one collector of the deployment
 * @param runs runs this process made, failed ones included
 * @param failedRuns runs that failed or stopped because the lease was lost
 * @param deletedObjects objects this process deleted
 * @param deletedBytes bytes of the objects this process deleted
 * @param lastRunEnd when the last run ended
 * @param lastError when and what last went wrong (a run, or taking the lease)
 * @param lastResult what the last successful run did
 */
public record GcStatus(
        boolean enabled,
        boolean leaseHeld,
        long runs,
        long failedRuns,
        long deletedObjects,
        long deletedBytes,
        Optional<Instant> lastRunEnd,
        Optional<String> lastError,
        Optional<GcResult> lastResult) {}
