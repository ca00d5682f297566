package dev.lakestream.core.bench;

/** One saturating writer run: appends completed, the WAL object PUTs behind them and their index commits. */
record WriterRun(
        double seconds,
        long entries,
        long payloadBytes,
        long puts,
        long objectBytes,
        long fullObjects,
        double meanInFlightPuts,
        int maxInFlightPuts,
        long metadataWrites,
        Histogram appendLatency,
        Histogram putLatency,
        Histogram commitLatency,
        long failures,
        CpuMeter.Usage cpu)
        implements WriteCost {
    double mibPerSecond() {
        return payloadBytes / Figures.MIB / seconds;
    }

    double entriesPerSecond() {
        return entries / seconds;
    }

    double meanObjectBytes() {
        return puts == 0 ? Double.NaN : (double) objectBytes / puts;
    }
}
