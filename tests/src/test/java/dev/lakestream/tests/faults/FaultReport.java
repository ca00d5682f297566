package dev.lakestream.tests.faults;

import dev.lakestream.testkit.BenchmarksDoc;
import dev.lakestream.tests.PulsarBrokerExtension;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The counts of one test class's scenarios, written as a section of {@code docs/reliability.md} when the class ends
 * (each run replaces its own section, as the benchmarks do in {@code docs/benchmarks.md}).
 */
final class FaultReport {

    /** One scenario with deduplication on or off. */
    record Row(
            String scenario,
            boolean dedup,
            int acknowledged,
            int sendErrors,
            int lost,
            long storedTwice,
            long redelivered,
            int orderViolations,
            int idsNotRising,
            double recoverSeconds,
            double p99Ms,
            long heapBytes,
            long directBytes,
            String note) {}

    private final String heading;
    private final String intro;
    private final List<Row> rows = new ArrayList<>();

    FaultReport(String heading, String intro) {
        this.heading = heading;
        this.intro = intro;
    }

    synchronized void add(Row row) {
        rows.add(row);
    }

    synchronized List<Row> rows() {
        return List.copyOf(rows);
    }

    /** Writes the section (nothing if no scenario ran). */
    synchronized void write() throws IOException {
        if (rows.isEmpty()) {
            return;
        }
        StringBuilder s = new StringBuilder();
        s.append(heading).append("\n\n").append(intro).append("\n\n");
        s.append("Last run: ")
                .append(Instant.now().truncatedTo(ChronoUnit.SECONDS))
                .append(" (written by the test class; counts per scenario and deduplication setting).\n\n");
        s.append("| scenario | dedup | acked | send errors | lost | stored twice | redelivered | key order violations "
                + "| ids not rising | recover (s) | p99 send (ms) | heap max (MiB) | direct max (MiB) | note |\n");
        s.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
        for (Row r : rows) {
            s.append("| ")
                    .append(r.scenario())
                    .append(" | ")
                    .append(r.dedup() ? "on" : "off")
                    .append(" | ")
                    .append(r.acknowledged())
                    .append(" | ")
                    .append(r.sendErrors())
                    .append(" | ")
                    .append(r.lost())
                    .append(" | ")
                    .append(r.storedTwice())
                    .append(" | ")
                    .append(r.redelivered())
                    .append(" | ")
                    .append(r.orderViolations())
                    .append(" | ")
                    .append(r.idsNotRising())
                    .append(" | ")
                    .append(fmt(r.recoverSeconds(), 1))
                    .append(" | ")
                    .append(fmt(r.p99Ms(), 0))
                    .append(" | ")
                    .append(mib(r.heapBytes()))
                    .append(" | ")
                    .append(mib(r.directBytes()))
                    .append(" | ")
                    .append(r.note())
                    .append(" |\n");
        }
        BenchmarksDoc.writeSection(doc(), heading, s.toString());
    }

    static Path doc() {
        return PulsarBrokerExtension.projectDir().resolve("docs/reliability.md");
    }

    private static String fmt(double v, int decimals) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%." + decimals + "f", v);
    }

    private static String mib(long bytes) {
        return bytes <= 0 ? "-" : Long.toString(bytes >> 20);
    }
}
