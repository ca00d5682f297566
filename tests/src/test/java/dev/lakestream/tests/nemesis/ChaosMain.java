package dev.lakestream.tests.nemesis;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadLocalRandom;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code bin/chaos}: one long nemesis run (three brokers by default) with a given or random seed; prints the result
 * and writes it as the "long runs" section of {@code docs/reliability.md} (unless {@code --no-doc}); exits 1 when a
 * checker counted a violation.
 */
@Command(
        name = "bin/chaos",
        mixinStandardHelpOptions = true,
        description = "A long nemesis run: overlapping random faults under traffic, then the history checker.")
public final class ChaosMain implements Callable<Integer> {

    @Option(names = "--minutes", description = "How long faults are injected (default: ${DEFAULT-VALUE}).")
    long minutes = 30;

    @Option(
            names = "--seconds",
            description = "How long faults are injected, in seconds, instead of --minutes (to replay a short run: "
                    + "NemesisTest's is 75 s with --brokers 2 --without BROKER_PAUSE).")
    Long seconds;

    @Option(
            names = "--without",
            split = ",",
            description = "Fault kinds the schedule leaves out (of: ${COMPLETION-CANDIDATES}).")
    java.util.List<FaultKind> without = java.util.List.of();

    @Option(names = "--seed", description = "The schedule's seed (default: random, printed).")
    Long seed;

    @Option(names = "--brokers", description = "Broker processes (default: ${DEFAULT-VALUE}).")
    int brokers = 3;

    @Option(names = "--rate", description = "Keyed messages a second per topic (default: ${DEFAULT-VALUE}).")
    int rate = 40;

    @Option(names = "--no-doc", description = "Print the result only; leave the doc as it is.")
    boolean noDoc;

    @Option(names = "--doc", description = "The doc the result is written into (default: ${DEFAULT-VALUE}).")
    java.nio.file.Path doc = java.nio.file.Path.of("docs/reliability.md");

    @Option(
            names = "--label",
            description = "The run's topic-name prefix (default: chaos); with a NemesisTest seed, its label (e.g. "
                    + "random) makes the topics, and so their owners, those of that run.")
    String label = "chaos";

    @Option(names = "--command", hidden = true, description = "The command line, as the report quotes it.")
    String command = "bin/chaos";

    public static void main(String[] args) {
        System.exit(new CommandLine(new ChaosMain()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        Duration faults = seconds != null ? Duration.ofSeconds(seconds) : Duration.ofMinutes(minutes);
        java.util.EnumSet<FaultKind> kinds = java.util.EnumSet.allOf(FaultKind.class);
        without.forEach(kinds::remove);
        if (faults.toSeconds() < 10 || brokers < 2 || rate < 1 || kinds.isEmpty()) {
            throw new CommandLine.ParameterException(
                    new CommandLine(this),
                    "--minutes must be >= 1 (--seconds >= 10), --brokers >= 2, --rate >= 1, --without not every kind");
        }
        long s = seed != null ? seed : ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE);
        System.out.println("bin/chaos: seed " + s + ", " + faults.toSeconds() + " s of faults, " + brokers
                + " brokers, kinds " + kinds);
        NemesisRun.Result r;
        try (NemesisCluster cluster = NemesisCluster.start("chaos", brokers, NemesisCluster.metadataSession(kinds))) {
            r = NemesisRun.run(
                    cluster.cluster(), cluster.client(), cluster.catalog(), label + s % 10_000, s, faults, kinds, rate);
        }
        System.out.println(r.describe());
        if (!noDoc) {
            NemesisReport report = new NemesisReport(
                    "## Nemesis: long runs (bin/chaos)",
                    "`" + command + "` (seed " + s + "): " + brokers
                            + " broker processes, S3Proxy behind the fault proxy, Oxia; the topics and checks of the "
                            + "short run (above), " + rate + " keyed messages/s per topic; machine: "
                            + Runtime.getRuntime().availableProcessors() + " cores.");
            report.add("chaos", r);
            report.write(doc);
        }
        System.out.println(r.verdict().passed() ? "PASSED" : "FAILED (seed " + s + ")");
        return r.verdict().passed() ? 0 : 1;
    }
}
