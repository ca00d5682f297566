package dev.lakestream.core.bench;

/**
 * One stream read to its end as a broker's dispatcher reads it: time, entries written and read, reads, the GETs and
 * index scans they took.
 */
record DispatchRun(
        double seconds,
        long written,
        long entries,
        long bytes,
        long reads,
        long rangeGets,
        long bytesFetched,
        long indexRecordsScanned,
        long mismatches) {
    double mibPerSecond() {
        return bytes / Figures.MIB / seconds;
    }
}
