package dev.lakestream.core.bench;

import dev.lakestream.testkit.BenchCommandLine;
import java.nio.file.Path;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/**
 * The command-line options of {@link LogBenchmark} (its class comment is the usage text), with their defaults;
 * {@code --quick} shortens every phase and runs each once.
 */
@Command(name = "LogBenchmark", showDefaultValues = true)
final class BenchOptions {
    @Option(names = "--streams", paramLabel = "N", converter = Positive.class)
    int streams = 64;

    int entryBytes = 1024;

    @Option(names = "--outstanding", paramLabel = "N", converter = Positive.class)
    int outstanding = 32768;

    @Option(names = "--reps", paramLabel = "N", converter = Positive.class)
    int reps = 5;
    /** Writer and raw PUT runs again with the stores pinned to a CPU of their own (0: none). */
    int pinnedReps = 5;
    /**
     * The writer's first, unmeasured run: long enough for the JIT to finish compiling the write path (a shorter
     * one left run 1 paying for compilation, about a third of a core, and reading low).
     */
    @Option(names = "--jit-warmup-seconds", paramLabel = "N", converter = Positive.class)
    int jitWarmupSeconds = 15;

    int writerWarmupSeconds = 3;

    @Option(names = "--writer-seconds", paramLabel = "N", converter = Positive.class)
    int writerSeconds = 12;

    int rawWarmupSeconds = 2;

    @Option(names = "--raw-seconds", paramLabel = "N", converter = Positive.class)
    int rawSeconds = 6;

    @Option(names = "--rate", paramLabel = "N", converter = Positive.class)
    int rate = 2000;

    int latencyWarmupSeconds = 3;

    @Option(names = "--latency-seconds", paramLabel = "N", converter = Positive.class)
    int latencySeconds = 20;

    @Option(names = "--catchup-mib", paramLabel = "N", converter = Positive.class)
    int catchUpMib = 192;
    /** The one stream read as a broker's dispatcher reads, with injected latency (see {@link CatchUpRead#dispatch}). */
    @Option(names = "--dispatch-mib", paramLabel = "N", converter = Positive.class)
    int dispatchMib = 16;

    @Option(names = "--dispatch-reps", paramLabel = "N", converter = Positive.class)
    int dispatchReps = 3;

    int rawGetSeconds = 6;
    /** Fixed-rate runs at 10 and 100 appends/s, measured for this long each. */
    int lowRateSeconds = 10;
    /** One append at a time: runs of each flush policy, alternating, and how long each is measured. */
    int sequentialReps = 3;

    int sequentialSeconds = 5;
    double injectP50Millis = 30;
    double injectP99Millis = 120;

    @Option(names = "--doc", paramLabel = "FILE")
    Path doc;

    @Option(names = "--command", paramLabel = "TEXT")
    String command = "java dev.lakestream.core.bench.LogBenchmark";

    boolean quick;

    @Option(
            names = {"-h", "--help"},
            usageHelp = true)
    boolean help;

    /**
     * The options of {@code args}; fails naming an unknown option or a bad value. {@code --quick} sets what it sets
     * where it stands: an option after it wins.
     */
    static BenchOptions parse(String... args) {
        BenchOptions o = new BenchOptions();
        BenchCommandLine.parser(o).parseArgs(args);
        return o;
    }

    @Option(names = "--quick")
    void quick(boolean on) {
        if (!on) {
            return;
        }
        quick = true;
        reps = 1;
        pinnedReps = 1;
        jitWarmupSeconds = 4;
        writerWarmupSeconds = 2;
        writerSeconds = 4;
        rawWarmupSeconds = 1;
        rawSeconds = 3;
        latencyWarmupSeconds = 1;
        latencySeconds = 4;
        catchUpMib = 64;
        rawGetSeconds = 3;
        dispatchMib = 8;
        dispatchReps = 1;
        lowRateSeconds = 3;
        sequentialReps = 1;
        sequentialSeconds = 2;
    }

    @Option(names = "--no-doc")
    void noDoc(boolean on) {
        if (on) {
            doc = null;
        }
    }

    @Option(names = "--pinned-reps", paramLabel = "N")
    void pinnedReps(int n) {
        pinnedReps = Math.max(0, n);
    }

    @Option(names = "--entry-bytes", paramLabel = "N", converter = Positive.class)
    void entryBytes(int n) {
        entryBytes = Math.max(16, n);
    }

    /** A count or a time that must be at least 1, named in the error when it is not. */
    static final class Positive implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            int v;
            try {
                v = Integer.parseInt(value);
            } catch (NumberFormatException e) {
                throw new TypeConversionException("'" + value + "' is not a whole number");
            }
            if (v < 1) {
                throw new TypeConversionException("must be positive, not " + v);
            }
            return v;
        }
    }
}
