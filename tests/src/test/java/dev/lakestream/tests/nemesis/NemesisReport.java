package dev.lakestream.tests.nemesis;

import dev.lakestream.testkit.BenchmarksDoc;
import dev.lakestream.tests.PulsarBrokerExtension;
import java.io.IOException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Nemesis runs as a section of {@code docs/reliability.md}: one row per run with its seed, length, the faults of each
 * kind it injected, the messages acknowledged and every checker's count (each run replaces its section, as the fault
 * classes do).
 */
final class NemesisReport {

    private final String heading;
    private final String intro;
    private final List<String> rows = new ArrayList<>();

    NemesisReport(String heading, String intro) {
        this.heading = heading;
        this.intro = intro;
    }

    synchronized void add(String run, NemesisRun.Result r) {
        Map<FaultKind, Integer> kinds = r.faults().counts();
        String faults = kinds.entrySet().stream()
                .map(e -> e.getKey().name().toLowerCase(Locale.ROOT).replace('_', ' ') + " " + e.getValue())
                .collect(Collectors.joining(", "));
        StringBuilder s = new StringBuilder("| ")
                .append(run)
                .append(" | ")
                .append(r.schedule().seed())
                .append(" | ")
                .append(r.schedule().length().toSeconds())
                .append(" | ")
                .append(r.faults().entries().size())
                .append(" (")
                .append(faults)
                .append(") | ")
                .append(r.faults().failedSteps())
                .append(" | ")
                .append(r.stuckBundles())
                .append(" | ")
                .append(r.acknowledged())
                .append(" | ")
                .append(r.committedTxns())
                .append('/')
                .append(r.abortedTxns())
                .append('/')
                .append(r.unknownTxns())
                .append(" | ")
                .append(r.tableRows())
                .append(" | ")
                .append((long) r.segmentsWritten());
        for (String c : HistoryChecker.CHECKS) {
            s.append(" | ").append(r.verdict().counts().get(c));
        }
        s.append(" | ").append(String.format(Locale.ROOT, "%.0f", r.seconds())).append(" |");
        rows.add(s.toString());
    }

    /** Writes the section into the project's {@code docs/reliability.md}. */
    void write() throws IOException {
        write(PulsarBrokerExtension.projectDir().resolve("docs/reliability.md"));
    }

    synchronized void write(java.nio.file.Path doc) throws IOException {
        if (rows.isEmpty()) {
            return;
        }
        StringBuilder s = new StringBuilder();
        s.append(heading).append("\n\n").append(intro).append("\n\n");
        s.append("Last run: ")
                .append(Instant.now().truncatedTo(ChronoUnit.SECONDS))
                .append(
                        ". Faults: as injected, per kind; steps failed: fault steps that did not complete (e.g. a "
                                + "broker that did not restart in time); bundles stuck: namespace bundles Pulsar left disabled on their owner after the faults healed, freed before the checks (finding 8). Txn outcomes: transactions committed/aborted/unknown (the client could not learn the outcome).\n\n");
        s.append(
                "| run | seed | faults for (s) | faults | steps failed | bundles stuck | acked | txn outcomes | table rows "
                        + "| segments written");
        HistoryChecker.CHECKS.forEach(c -> s.append(" | ").append(c));
        s.append(" | run took (s) |\n|---|---:|---:|---|---:|---:|---:|---:|---:|---:");
        HistoryChecker.CHECKS.forEach(c -> s.append("|---:"));
        s.append("|---:|\n");
        rows.forEach(r -> s.append(r).append('\n'));
        BenchmarksDoc.writeSection(doc, heading, s.toString());
    }
}
