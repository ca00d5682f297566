package dev.lakestream.tests.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The delivery counts of every publish/consume run of the benchmark, warm-up runs included: a run whose consumers
 * did not receive every message its producers had acknowledged lost messages, and fails the benchmark.
 */
final class DeliveryCheck {

    /** One run's counts, named by its storage and what the run was. */
    record Run(String storage, String name, DeliveryTracker.Delivery delivery) {}

    private final List<Run> runs = new ArrayList<>();

    void add(String storage, String name, PublishConsumeRun.Result result) {
        runs.add(new Run(storage, name, result.delivery()));
    }

    boolean failed() {
        return runs.stream().anyMatch(r -> r.delivery().lost() > 0);
    }

    /** One "LOST: ..." line per run that lost messages. */
    List<String> lostLines() {
        List<String> out = new ArrayList<>();
        for (Run r : runs) {
            DeliveryTracker.Delivery d = r.delivery();
            if (d.lost() > 0) {
                out.add(String.format(
                        Locale.ROOT,
                        "LOST: %,d acknowledged messages not delivered (storage %s, run %s: %,d acknowledged, %,d"
                                + " received)",
                        d.lost(),
                        r.storage(),
                        r.name(),
                        d.acknowledged(),
                        d.received()));
            }
        }
        return out;
    }

    /** The counts of every run as a Markdown table, and the verdict. */
    String render() {
        StringBuilder b = new StringBuilder();
        b.append("\n### Delivery: acknowledged against received\n\n");
        b.append(String.format(
                Locale.ROOT,
                "Every message carries its producer's index and sequence number. Acknowledged: send futures that "
                        + "completed successfully; received: distinct messages the consumers got; duplicates: messages "
                        + "received more than once; lost: acknowledged and never received. After its producers stop, "
                        + "a run drains until every acknowledged message is received, or nothing arrived for %d s, or "
                        + "%d s passed; a run that ends with a message lost fails the benchmark (it exits non-zero and "
                        + "does not write this section).%n%n",
                PublishConsumeRun.DRAIN_QUIET_SECONDS,
                PublishConsumeRun.DRAIN_MAX_SECONDS));
        b.append("| run | storage | sent | acknowledged | received | duplicates | lost |\n");
        b.append("|---|---|---|---|---|---|---|\n");
        long lost = 0;
        long duplicates = 0;
        for (Run r : runs) {
            DeliveryTracker.Delivery d = r.delivery();
            lost += d.lost();
            duplicates += d.duplicates();
            b.append(String.format(
                    Locale.ROOT,
                    "| %s | %s | %,d | %,d | %,d | %,d | %s |%n",
                    r.name(),
                    r.storage(),
                    d.sent(),
                    d.acknowledged(),
                    d.received(),
                    d.duplicates(),
                    d.lost() > 0 ? String.format(Locale.ROOT, "**%,d**", d.lost()) : "0"));
        }
        if (lost > 0) {
            b.append("\n**FAILED:** ");
            b.append(String.join("; ", lostLines())).append(".\n");
        } else {
            b.append(String.format(
                    Locale.ROOT,
                    "%nEvery acknowledged message of every run was received (%d runs, 0 lost, %,d duplicates).%n",
                    runs.size(),
                    duplicates));
        }
        return b.toString();
    }
}
