package dev.lakestream.pulsar.bench;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/** What one run measured, and its rendering as the {@code ## Managed ledger} section. */
final class Results {

    static final String HEADING = "## Managed ledger";

    final List<WriteLoad.Throughput> coreWrites = new ArrayList<>();
    final List<WriteLoad.Throughput> mlWrites = new ArrayList<>();
    final List<CatchUp.Read> coreReads = new ArrayList<>();
    final List<CatchUp.Read> mlReads = new ArrayList<>();
    WriteLoad.Latency coreLatency;
    WriteLoad.Latency mlLatency;
    String command;
    String date;
    String machine;
    String loadBefore;
    String loadAfter;
    double minutes;
    String workload;
    String cpuDetail;

    String render() {
        StringBuilder b = new StringBuilder();
        b.append(HEADING).append("\n\n");
        b.append("Written by `dev.lakestream.pulsar.bench.ManagedLedgerBenchmark` (`pulsar-managedledger-lakestream/"
                + "src/bench/java`), which starts its own S3Proxy and Oxia server through the test kit and measures "
                + "the core log and the managed ledger over it side by side, in one JVM, on the same stores. Figures "
                + "are from one run of the command; do not edit them by hand, run it again.\n\n");
        b.append("- **Command:** `").append(command).append("`\n");
        b.append("- **Date:** ")
                .append(date)
                .append(fmt(" (the whole benchmark took %.1f min)", minutes))
                .append('\n');
        b.append("- **Machine:** ").append(machine).append('\n');
        b.append("- **Load average (1/5/15 min):** ")
                .append(loadBefore)
                .append(" before, ")
                .append(loadAfter)
                .append(" after\n");
        b.append("- **Workload:** ").append(workload).append("\n\n");
        b.append("### Adds and reads, core vs managed ledger\n\n");
        b.append("| | ");
        for (int i = 1; i <= coreWrites.size(); i++) {
            b.append("run ").append(i).append(" | ");
        }
        b.append("median |\n|---|").append("---|".repeat(coreWrites.size() + 1)).append('\n');
        row(b, "Core `StreamLog.append` (MiB/s)", coreWrites, WriteLoad.Throughput::mibPerSecond, "%.1f");
        row(b, "ML `asyncAddEntry` (MiB/s)", mlWrites, WriteLoad.Throughput::mibPerSecond, "%.1f");
        row(b, "Core append (entries/s)", coreWrites, WriteLoad.Throughput::entriesPerSecond, "%,.0f");
        row(b, "ML add (entries/s)", mlWrites, WriteLoad.Throughput::entriesPerSecond, "%,.0f");
        row(b, "Other processes' CPU, core run (cores)", coreWrites, WriteLoad.Throughput::otherCores, "%.2f");
        row(b, "Other processes' CPU, ML run (cores)", mlWrites, WriteLoad.Throughput::otherCores, "%.2f");
        row(b, "Core catch-up `StreamLog.read` (MiB/s)", coreReads, CatchUp.Read::mibPerSecond, "%.1f");
        row(b, "ML catch-up, managed cursor (MiB/s)", mlReads, CatchUp.Read::mibPerSecond, "%.1f");
        row(b, "Core catch-up (entries/s)", coreReads, CatchUp.Read::entriesPerSecond, "%,.0f");
        row(b, "ML catch-up (entries/s)", mlReads, CatchUp.Read::entriesPerSecond, "%,.0f");
        b.append('\n');

        b.append(fmt(
                "Append latency, open loop at %,.0f adds/s achieved (core) and %,.0f/s (ML), %,d and %,d adds "
                        + "measured:\n\n",
                coreLatency.achievedRate(), mlLatency.achievedRate(), coreLatency.count(), mlLatency.count()));
        b.append("| | core | ML | ML / core |\n|---|---|---|---|\n");
        latency(b, "p50", coreLatency.p50(), mlLatency.p50());
        latency(b, "p99", coreLatency.p99(), mlLatency.p99());
        latency(b, "p99.9", coreLatency.p999(), mlLatency.p999());
        latency(b, "max", coreLatency.max(), mlLatency.max());
        b.append('\n');

        b.append("Overhead of the managed ledger (ML / core, medians; below 1 = the ML is slower, for latency above 1 "
                + "= slower):\n\n");
        b.append(fmt(
                "- add throughput: **%.2f**\n",
                median(mlWrites, WriteLoad.Throughput::entriesPerSecond)
                        / median(coreWrites, WriteLoad.Throughput::entriesPerSecond)));
        b.append(fmt(
                "- add latency at the fixed rate: p50 **%.2f**, p99 **%.2f**\n",
                mlLatency.p50() / coreLatency.p50(), mlLatency.p99() / coreLatency.p99()));
        b.append(fmt(
                "- catch-up read throughput: **%.2f**\n",
                median(mlReads, CatchUp.Read::entriesPerSecond) / median(coreReads, CatchUp.Read::entriesPerSecond)));
        b.append('\n');
        b.append("CPU (busy cores) during the last throughput runs: ")
                .append(cpuDetail)
                .append('\n');
        return b.toString();
    }

    private static <T> void row(StringBuilder b, String name, List<T> runs, ToDoubleFunction<T> f, String format) {
        b.append("| ").append(name).append(" | ");
        for (T r : runs) {
            b.append(fmt(format, f.applyAsDouble(r))).append(" | ");
        }
        b.append("**").append(fmt(format, median(runs, f))).append("** |\n");
    }

    private static void latency(StringBuilder b, String name, double core, double ml) {
        b.append(fmt("| add %s | %.1f ms | %.1f ms | %.2f |\n", name, core, ml, ml / core));
    }

    static <T> double median(List<T> runs, ToDoubleFunction<T> f) {
        List<Double> v = runs.stream()
                .map(f::applyAsDouble)
                .sorted(Comparator.naturalOrder())
                .toList();
        return v.isEmpty() ? Double.NaN : v.get(v.size() / 2);
    }

    private static String fmt(String format, Object... args) {
        return String.format(Locale.ROOT, format, args);
    }
}
