package dev.lakestream.core.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Every read-back of the benchmark against what was written: a read that got fewer entries than were written (and
 * acknowledged) lost them, one that got a wrong entry (offset, length or bytes) mismatched; either fails the
 * benchmark, after its report is printed.
 */
final class ReadCheck {

    private final List<String> failures = new ArrayList<>();

    /** Checks one read of {@code what}: {@code written} entries written, {@code read} read back. */
    void check(String what, long written, long read, long mismatches) {
        if (read < written) {
            failures.add(String.format(
                    Locale.ROOT,
                    "LOST: %,d written entries not read (%s: %,d written, %,d read)",
                    written - read,
                    what,
                    written,
                    read));
        }
        if (mismatches > 0) {
            failures.add(String.format(
                    Locale.ROOT,
                    "MISMATCH: %,d entries read wrong (%s: %,d written, %,d read)",
                    mismatches,
                    what,
                    written,
                    read));
        }
    }

    boolean failed() {
        return !failures.isEmpty();
    }

    List<String> failures() {
        return List.copyOf(failures);
    }
}
