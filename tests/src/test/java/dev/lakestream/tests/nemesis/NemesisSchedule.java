package dev.lakestream.tests.nemesis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * A seeded random fault schedule: the same seed, length and kinds give the same faults at the same offsets, so a
 * failed run can be replayed. Faults arrive every 1 to 5 s; each group's faults follow one another, so faults of different
 * groups overlap (an S3 storm while a broker is paused while Oxia restarts). After a broker fault, its group leaves the
 * cluster {@link #BROKER_SETTLE_MILLIS} to move topics back before the next one.
 */
record NemesisSchedule(long seed, Duration length, Set<FaultKind> kinds, List<ScheduledFault> faults) {

    static final long BROKER_SETTLE_MILLIS = 10_000;
    /** Gap after any fault before the next one of the same group. */
    static final long GROUP_GAP_MILLIS = 1_000;

    private static final Map<FaultKind, Integer> WEIGHTS = new EnumMap<>(Map.of(
            FaultKind.S3_RESET, 2,
            FaultKind.S3_BLACKHOLE, 2,
            FaultKind.S3_SLOW, 2,
            FaultKind.S3_STORM, 3,
            FaultKind.OXIA_RESTART, 2,
            FaultKind.OXIA_PAUSE, 2,
            FaultKind.BROKER_PAUSE, 2,
            FaultKind.BROKER_KILL, 2,
            FaultKind.UNLOAD, 2,
            FaultKind.TRIM, 2));

    /** A schedule of every kind of fault. */
    static NemesisSchedule generate(long seed, Duration length) {
        return generate(seed, length, EnumSet.allOf(FaultKind.class));
    }

    /** A schedule of the given kinds of fault only. */
    static NemesisSchedule generate(long seed, Duration length, Set<FaultKind> kinds) {
        if (kinds.isEmpty()) {
            throw new IllegalArgumentException("a schedule needs at least one kind of fault");
        }
        Random random = new Random(seed);
        long total = kinds.stream().mapToLong(WEIGHTS::get).sum();
        Map<FaultKind.Group, Long> free = new EnumMap<>(FaultKind.Group.class);
        List<ScheduledFault> faults = new ArrayList<>();
        long end = length.toMillis();
        long t = 0;
        while (true) {
            t += 1_000 + random.nextInt(4_000);
            if (t >= end) {
                break;
            }
            FaultKind kind = pick(random, total, kinds);
            long hold = kind.minHoldMillis
                    + (kind.maxHoldMillis > kind.minHoldMillis
                            ? random.nextLong(kind.maxHoldMillis - kind.minHoldMillis + 1)
                            : 0);
            int target = random.nextInt(1_000);
            long start = Math.max(t, free.getOrDefault(kind.group, 0L));
            if (start + hold > end) {
                continue;
            }
            faults.add(new ScheduledFault(kind, start, hold, target));
            free.put(kind.group, start + hold + GROUP_GAP_MILLIS + (kind.takesABrokerOut() ? BROKER_SETTLE_MILLIS : 0));
        }
        faults.sort(Comparator.comparingLong(ScheduledFault::atMillis));
        return new NemesisSchedule(seed, length, Set.copyOf(kinds), List.copyOf(faults));
    }

    private static FaultKind pick(Random random, long total, Set<FaultKind> kinds) {
        long r = random.nextLong(total);
        for (FaultKind k : FaultKind.values()) {
            if (!kinds.contains(k)) {
                continue;
            }
            r -= WEIGHTS.get(k);
            if (r < 0) {
                return k;
            }
        }
        throw new AssertionError("weights do not add up");
    }

    /** How many faults of each kind. */
    Map<FaultKind, Integer> counts() {
        Map<FaultKind, Integer> c = new EnumMap<>(FaultKind.class);
        for (ScheduledFault f : faults) {
            c.merge(f.kind(), 1, Integer::sum);
        }
        return c;
    }

    /** The faults of one group, in order. */
    List<ScheduledFault> of(FaultKind.Group group) {
        return faults.stream().filter(f -> f.kind().group == group).toList();
    }

    String describe() {
        StringBuilder s = new StringBuilder("schedule of seed " + seed + " (" + length.toSeconds() + " s, "
                + faults.size() + " faults"
                + (kinds.size() < FaultKind.values().length
                        ? "; left out: " + EnumSet.complementOf(EnumSet.copyOf(kinds))
                        : "")
                + "):\n");
        faults.forEach(f -> s.append("  ").append(f).append('\n'));
        return s.toString();
    }
}
