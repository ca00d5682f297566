package dev.lakestream.core.bench;

/**
 * One catch-up read of the whole data set: what it read (against the entries written), the GETs and index scans it
 * took, its mismatches.
 */
record ReadRun(
        double seconds,
        long written,
        long entries,
        long bytes,
        long gets,
        long rangeGets,
        long bytesFetched,
        long indexScans,
        long indexRecordsScanned,
        long mismatches,
        Histogram rangeGetLatency,
        double meanInFlightGets,
        Histogram scanLatency,
        CpuMeter.Usage cpu) {
    double mibPerSecond() {
        return bytes / Figures.MIB / seconds;
    }

    double entriesPerSecond() {
        return entries / seconds;
    }
}
