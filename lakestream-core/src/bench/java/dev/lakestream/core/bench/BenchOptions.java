package dev.lakestream.core.bench;

import java.nio.file.Path;

/**
 * The command-line options of {@link LogBenchmark} (its class comment is the usage text), with their defaults;
 * {@code --quick} shortens every phase and runs each once.
 */
final class BenchOptions {
    int streams = 64;
    int entryBytes = 1024;
    int outstanding = 32768;
    int reps = 5;
    /** Writer and raw PUT runs again with the stores pinned to a CPU of their own (0: none). */
    int pinnedReps = 5;
    /**
     * The writer's first, unmeasured run: long enough for the JIT to finish compiling the write path (a shorter
     * one left run 1 paying for compilation, about a third of a core, and reading low).
     */
    int jitWarmupSeconds = 15;

    int writerWarmupSeconds = 3;
    int writerSeconds = 12;
    int rawWarmupSeconds = 2;
    int rawSeconds = 6;
    int rate = 2000;
    int latencyWarmupSeconds = 3;
    int latencySeconds = 20;
    int catchUpMib = 192;
    /** The one stream read as a broker's dispatcher reads, with injected latency (see {@link CatchUpRead#dispatch}). */
    int dispatchMib = 16;

    int dispatchReps = 3;
    int rawGetSeconds = 6;
    /** Fixed-rate runs at 10 and 100 appends/s, measured for this long each. */
    int lowRateSeconds = 10;
    /** One append at a time: runs of each flush policy, alternating, and how long each is measured. */
    int sequentialReps = 3;

    int sequentialSeconds = 5;
    double injectP50Millis = 30;
    double injectP99Millis = 120;
    Path doc;
    String command = "java dev.lakestream.core.bench.LogBenchmark";
    boolean quick;

    static BenchOptions parse(String[] args) {
        BenchOptions o = new BenchOptions();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--quick" -> {
                    o.quick = true;
                    o.reps = 1;
                    o.pinnedReps = 1;
                    o.jitWarmupSeconds = 4;
                    o.writerWarmupSeconds = 2;
                    o.writerSeconds = 4;
                    o.rawWarmupSeconds = 1;
                    o.rawSeconds = 3;
                    o.latencyWarmupSeconds = 1;
                    o.latencySeconds = 4;
                    o.catchUpMib = 64;
                    o.rawGetSeconds = 3;
                    o.dispatchMib = 8;
                    o.dispatchReps = 1;
                    o.lowRateSeconds = 3;
                    o.sequentialReps = 1;
                    o.sequentialSeconds = 2;
                }
                case "--doc" -> o.doc = Path.of(value(args, ++i, a));
                case "--no-doc" -> o.doc = null;
                case "--command" -> o.command = value(args, ++i, a);
                case "--reps" -> o.reps = positive(args, ++i, a);
                case "--pinned-reps" -> o.pinnedReps = Math.max(0, Integer.parseInt(value(args, ++i, a)));
                case "--streams" -> o.streams = positive(args, ++i, a);
                case "--entry-bytes" -> o.entryBytes = Math.max(16, positive(args, ++i, a));
                case "--outstanding" -> o.outstanding = positive(args, ++i, a);
                case "--jit-warmup-seconds" -> o.jitWarmupSeconds = positive(args, ++i, a);
                case "--writer-seconds" -> o.writerSeconds = positive(args, ++i, a);
                case "--raw-seconds" -> o.rawSeconds = positive(args, ++i, a);
                case "--rate" -> o.rate = positive(args, ++i, a);
                case "--latency-seconds" -> o.latencySeconds = positive(args, ++i, a);
                case "--catchup-mib" -> o.catchUpMib = positive(args, ++i, a);
                case "--dispatch-mib" -> o.dispatchMib = positive(args, ++i, a);
                case "--dispatch-reps" -> o.dispatchReps = positive(args, ++i, a);
                default ->
                    throw new IllegalArgumentException("unknown option " + a + " (see the LogBenchmark class comment)");
            }
        }
        return o;
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[i];
    }

    private static int positive(String[] args, int i, String option) {
        int v = Integer.parseInt(value(args, i, option));
        if (v < 1) {
            throw new IllegalArgumentException(option + " must be positive, not " + v);
        }
        return v;
    }
}
