package dev.lakestream.tests.nemesis;

import java.util.Locale;

/**
 * One fault of a schedule: {@code kind} injected {@code atMillis} after the schedule starts and healed
 * {@code holdMillis} later. {@code target} picks what it hits among the run's topics or namespaces (modulo their
 * number), so the same seed hits the same ones.
 */
record ScheduledFault(FaultKind kind, long atMillis, long holdMillis, int target) {

    long endMillis() {
        return atMillis + holdMillis;
    }

    @Override
    public String toString() {
        return String.format(
                Locale.ROOT, "%6.1f s +%4.1f s %-13s target %d", atMillis / 1e3, holdMillis / 1e3, kind, target);
    }
}
