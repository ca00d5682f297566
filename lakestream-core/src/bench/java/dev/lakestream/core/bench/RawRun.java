package dev.lakestream.core.bench;

/**
 * One run of raw PUTs (or ranged GETs: then {@code objectBytes} is the range and {@code puts} the GETs);
 * {@code keys} is how many objects the PUTs wrote, the ones a ranged GET run reads from.
 */
record RawRun(
        int objectBytes,
        int concurrency,
        double seconds,
        long puts,
        long bytes,
        double p50Millis,
        double p99Millis,
        long keys,
        CpuMeter.Usage cpu) {
    double mibPerSecond() {
        return bytes / Figures.MIB / seconds;
    }
}
