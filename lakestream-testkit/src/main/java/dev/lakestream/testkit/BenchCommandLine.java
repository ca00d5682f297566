package dev.lakestream.testkit;

import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

/**
 * A benchmark's command line, read into an object whose fields and methods carry picocli's {@code @Option}
 * annotations. Shared by the core, managed-ledger, Iceberg and broker benchmarks.
 */
public final class BenchCommandLine {

    private BenchCommandLine() {}

    /**
     * Fills {@code options} from {@code args} and returns it. An option given twice takes its last value (the
     * bin/bench-* scripts put their own {@code --doc} and {@code --command} first) and an argument starting with
     * {@code @} is itself, not a file of arguments. On {@code --help} or {@code -h} (when {@code options} declares
     * it) this prints the options with their defaults and exits 0; on an unknown option or a bad value it prints
     * what was wrong, naming the option, then the options, and exits 2.
     */
    public static <T> T parseOrExit(T options, String... args) {
        CommandLine commandLine = parser(options);
        try {
            commandLine.parseArgs(args);
        } catch (ParameterException e) {
            System.err.println(commandLine.getCommandName() + ": " + e.getMessage());
            commandLine.usage(System.err);
            System.exit(2);
        }
        if (commandLine.isUsageHelpRequested()) {
            commandLine.usage(System.out);
            System.exit(0);
        }
        return options;
    }

    /** The parser {@link #parseOrExit} uses, for tests: it throws {@link ParameterException} on a bad option. */
    public static CommandLine parser(Object options) {
        return new CommandLine(options).setOverwrittenOptionsAllowed(true).setExpandAtFiles(false);
    }
}
