package dev.lakestream.core.bench;

import java.time.Instant;
import java.util.List;

/**
 * Everything one benchmark run measured, for the report: the machine and its load, the raw PUT runs (at the
 * append window's concurrency and at the writer's), the writer runs, the fixed-rate runs with and without
 * injected latency (and the injected delays themselves), the catch-up data set, reads and raw ranged GETs, and the
 * one-stream data set read as a dispatcher reads it, with read-ahead off and on; fixed-rate runs at lower rates
 * ({@code lowRates}); one append at a time with each flush policy, alternating, without and with injected latency; the same and a
 * fixed-rate run on the embedded pair.
 * {@code rawObserved} is null where the writer's objects were within 5% of the maximum size. {@code pinning}
 * says how the pinned runs placed the processes, or why there are none.
 */
record Measurements(
        Machine machine,
        String loadBefore,
        String loadAfter,
        Instant date,
        double minutes,
        int maxObject,
        int rawConcurrency,
        List<RawRun> raws,
        List<RawRun> rawsAtWriter,
        List<WriterRun> writers,
        String pinning,
        List<WriterRun> pinnedWriters,
        List<RawRun> pinnedRaws,
        RawRun rawObserved,
        LatencyRun plain,
        LatencyRun injected,
        Histogram injectedLarge,
        Histogram injectedInRun,
        WrittenStreams backlog,
        List<ReadRun> reads,
        List<RawRun> rawGets,
        WrittenStreams dispatchSet,
        List<DispatchRun> dispatchOff,
        List<DispatchRun> dispatchOn,
        List<LatencyRun> lowRates,
        List<SequentialAppends.Run> sequential,
        List<SequentialAppends.Run> sequentialInjected,
        EmbeddedPairRuns.Result embedded) {}
