package dev.lakestream.core.bench;

/** One fixed-rate run: append, PUT and index-commit latencies at {@code rate} appends per second. */
record LatencyRun(
        int rate,
        double achievedRate,
        double seconds,
        Histogram append,
        Histogram put,
        Histogram commit,
        long puts,
        long payloadBytes,
        long metadataWrites,
        long failures,
        CpuMeter.Usage cpu)
        implements WriteCost {}
