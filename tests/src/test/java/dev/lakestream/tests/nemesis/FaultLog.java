package dev.lakestream.tests.nemesis;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** What the nemesis actually did, with the times (nanos) each fault was injected and healed, and any step's error. */
final class FaultLog {

    /** One fault as it happened; {@code healedAt} is the injection time for instant faults. */
    record Entry(ScheduledFault fault, String what, long injectedAt, long healedAt, String error) {}

    /** A step of healing that disturbs the cluster as a fault does (a bundle unloaded again, a broker restarted). */
    record HealStep(String what, long from, long to) {}

    private final long startNanos;
    private final List<Entry> entries = new ArrayList<>();
    private final List<HealStep> healSteps = new ArrayList<>();

    FaultLog(long startNanos) {
        this.startNanos = startNanos;
    }

    synchronized void add(Entry e) {
        entries.add(e);
    }

    synchronized List<Entry> entries() {
        return List.copyOf(entries);
    }

    synchronized void addHealStep(HealStep s) {
        healSteps.add(s);
    }

    /**
     * Whether any fault was in place at some time in {@code [from, to]} (nanos), counting {@code graceNanos} after each
     * heal (a broker's state settles after it comes back); heal steps count as faults.
     */
    synchronized boolean anyFaultBetween(long from, long to, long graceNanos) {
        return entries.stream().anyMatch(e -> e.injectedAt() <= to && e.healedAt() + graceNanos >= from)
                || healSteps.stream().anyMatch(h -> h.from() <= to && h.to() + graceNanos >= from);
    }

    /** Faults injected, per kind. */
    synchronized Map<FaultKind, Integer> counts() {
        Map<FaultKind, Integer> c = new EnumMap<>(FaultKind.class);
        entries.forEach(e -> c.merge(e.fault().kind(), 1, Integer::sum));
        return c;
    }

    synchronized long failedSteps() {
        return entries.stream().filter(e -> e.error() != null).count();
    }

    /** {@code nanos} as seconds after the start, the time axis of {@link #describe()}. */
    double secondsAfterStart(long nanos) {
        return (nanos - startNanos) / 1e9;
    }

    synchronized String describe() {
        StringBuilder s = new StringBuilder("faults as injected (s after the start):\n");
        for (Entry e : entries) {
            line(
                    s,
                    e.injectedAt(),
                    e.healedAt(),
                    e.fault().kind().name(),
                    e.what() + (e.error() == null ? "" : " (step failed: " + e.error() + ")"));
        }
        for (HealStep h : healSteps) {
            line(s, h.from(), h.to(), "HEAL", h.what());
        }
        return s.toString();
    }

    private void line(StringBuilder s, long from, long to, String kind, String what) {
        s.append(String.format(
                Locale.ROOT, "  %6.1f-%6.1f %-13s %s%n", secondsAfterStart(from), secondsAfterStart(to), kind, what));
    }
}
